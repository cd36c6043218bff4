/* jget: see jget.h. */
#include "base/jget.h"

const char *
jget_str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}
