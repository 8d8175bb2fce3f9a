/* A C program outside the tree that finds Strata through pkg-config or
   find_package(Strata), as a user's program would. */
#include <strata.h>

#include <stdio.h>
#include <string.h>

static const char SCHEMA[] =
    "{\"strata\": 1, \"models\": {\"User\": {\"keys\": \"snake_case\", \"properties\": {"
    "\"login\": {\"type\": \"string\", \"required\": true},"
    "\"avatarURL\": {\"type\": \"url\", \"json\": \"avatar_url\"}}}}}";

int main(void) {
    strata_error_t err;
    strata_schema_t *schema = strata_schema_loadb(SCHEMA, strlen(SCHEMA), &err);
    json_t *input, *dict;
    strata_model_t *user;
    char *text;
    if (schema == NULL) {
        fprintf(stderr, "schema: %s at %s: %s\n", err.code_name, err.path, err.message);
        return 1;
    }
    input = json_pack("{s:s, s:s}", "login", "octocat", "avatar_url",
                      "https://github.com/images/error/octocat_happy.gif");
    user = strata_map(schema, "User", input, &err);
    json_decref(input);
    if (user == NULL) {
        fprintf(stderr, "map: %s at %s: %s\n", err.code_name, err.path, err.message);
        strata_schema_decref(schema);
        return 1;
    }
    dict = strata_model_dictionary(user, NULL);
    text = strata_json_dumps(dict);
    printf("strata %s\n%s\n", strata_version(), text);
    strata_free(text);
    json_decref(dict);
    strata_model_decref(user);
    strata_schema_decref(schema);
    return 0;
}
