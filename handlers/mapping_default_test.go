package handlers_test

import (
	"testing"
)

// defaultWarn is the deprecation warning of every _default_ mapping update.
const defaultWarn = `299 Elasticsearch-7.17.0-quarry "[_default_] mapping is deprecated since it is not useful anymore now that indexes cannot have more than one type"`

// TestDefaultMapping covers the _default_ mapping (SPEC "Mapping update"):
// the typed put stores it, replacing the previous one (no merge); the typed
// get APIs show it beside the type, the untyped ones don't; it survives a
// restart; it is the base of the index's first type, whether that comes
// from a put mapping, the first document or a typed create; it leaves an
// existing type and the merge rules of ordinary updates alone.
func TestDefaultMapping(t *testing.T) {
	dir := t.TempDir()
	n := openTestNode(t, dir)
	const (
		badType = `{"error":{"root_cause":[{"type":"mapper_parsing_exception","reason":"No handler for type [nope] declared on field [x]"}],"type":"mapper_parsing_exception","reason":"No handler for type [nope] declared on field [x]"},"status":400}`
		// The second default after the first: a and dynamic are gone, b changed type.
		replaced = `{"_default_":{"properties":{"b":{"type":"keyword"},"c":{"type":"text"}}}}`
	)
	cases := []struct {
		name, method, path, body string
		status                   int
		warning, want            string
	}{
		{"index without mapping", "PUT", "/d", "", 200, "", ""},
		{"put _default_ wrapped", "PUT", "/d/_mapping/_default_?include_type_name=true",
			`{"_default_":{"dynamic":"strict","properties":{"a":{"type":"keyword"},"b":{"type":"long"}}}}`, 200, putWarn + "\n" + defaultWarn, `{"acknowledged":true}`},
		{"typed get shows it", "GET", "/d/_mapping?include_type_name=true", "", 200, getWarn,
			`{"d":{"mappings":{"_default_":{"dynamic":"strict","properties":{"a":{"type":"keyword"},"b":{"type":"long"}}}}}}`},
		{"put _default_ bare replaces it", "POST", "/d/_mapping/_default_?include_type_name=true",
			`{"properties":{"b":{"type":"keyword"},"c":{"type":"text"}}}`, 200, putWarn + "\n" + defaultWarn, `{"acknowledged":true}`},
		{"get _default_ by name", "GET", "/d/_mapping/_default_?include_type_name=true", "", 200, getWarn, `{"d":{"mappings":` + replaced + `}}`},
		{"untyped get hides it", "GET", "/d/_mapping", "", 200, "", `{"d":{"mappings":{}}}`},
		{"typed get index shows it", "GET", "/d?include_type_name=true&filter_path=*.mappings", "", 200, indexWarn, `{"d":{"mappings":` + replaced + `}}`},
		{"untyped get index hides it", "GET", "/d?filter_path=*.mappings", "", 200, "", `{"d":{"mappings":{}}}`},
		{"bad _default_ fails as any mapping", "PUT", "/d/_mapping/_default_?include_type_name=true", `{"properties":{"x":{"type":"nope"}}}`, 400, putWarn, badType},
		{"same error from an ordinary put", "PUT", "/d/_mapping", `{"properties":{"x":{"type":"nope"}}}`, 400, "", badType},
		{"_default_ needs include_type_name", "PUT", "/d/_mapping/_default_", `{"properties":{}}`, 400, "",
			`{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"Types cannot be provided in put mapping requests, unless the include_type_name parameter is set to true."}],"type":"illegal_argument_exception","reason":"Types cannot be provided in put mapping requests, unless the include_type_name parameter is set to true."},"status":400}`},
		{"typed get needs include_type_name", "GET", "/d/_mapping/_default_", "", 400, "",
			`{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"Types cannot be provided in get mapping requests, unless include_type_name is set to true."}],"type":"illegal_argument_exception","reason":"Types cannot be provided in get mapping requests, unless include_type_name is set to true."},"status":400}`},
		{"unknown type is a 404 beside what was found", "GET", "/d/_mapping/_default_,nope?include_type_name=true", "", 404, getWarn,
			`{"error":"type [nope] missing","status":404,"d":{"mappings":` + replaced + `}}`},
		{"wildcard type", "GET", "/d/_mapping/_def*?include_type_name=true", "", 200, getWarn, `{"d":{"mappings":` + replaced + `}}`},

		// First type from a document: the default is its base.
		{"strict default", "PUT", "/d/_mapping/_default_?include_type_name=true", `{"dynamic":"strict","properties":{"a":{"type":"long"}}}`, 200, putWarn + "\n" + defaultWarn, ""},
		{"first document inherits strict", "PUT", "/d/_doc/1", `{"z":1}`, 400, "",
			`{"error":{"root_cause":[{"type":"strict_dynamic_mapping_exception","reason":"mapping set to strict, dynamic introduction of [z] within [_doc] is not allowed"}],"type":"strict_dynamic_mapping_exception","reason":"mapping set to strict, dynamic introduction of [z] within [_doc] is not allowed"},"status":400}`},
		{"a rejected document makes no type", "GET", "/d/_mapping", "", 200, "", `{"d":{"mappings":{}}}`},
		{"first document inherits the properties", "PUT", "/d/_doc/1", `{"a":"7"}`, 201, "", ""},
		{"the type now exists", "GET", "/d/_mapping?include_type_name=true", "", 200, getWarn,
			`{"d":{"mappings":{"_default_":{"dynamic":"strict","properties":{"a":{"type":"long"}}},"_doc":{"dynamic":"strict","properties":{"a":{"type":"long"}}}}}}`},
		{"a later default leaves the type alone", "PUT", "/d/_mapping/_default_?include_type_name=true", `{"properties":{"q":{"type":"keyword"}}}`, 200, putWarn + "\n" + defaultWarn, ""},
		{"type unchanged", "GET", "/d/_mapping", "", 200, "", `{"d":{"mappings":{"dynamic":"strict","properties":{"a":{"type":"long"}}}}}`},

		// First type from a put mapping: the type's own values win.
		{"index e", "PUT", "/e", "", 200, "", ""},
		{"default of e", "PUT", "/e/_mapping/_default_?include_type_name=true",
			`{"_default_":{"date_detection":false,"properties":{"a":{"type":"keyword"},"b":{"type":"keyword"}},"dynamic_templates":[{"strings":{"match_mapping_type":"string","mapping":{"type":"keyword"}}}]}}`, 200, putWarn + "\n" + defaultWarn, ""},
		{"first typed put", "PUT", "/e/_mapping/t?include_type_name=true",
			`{"t":{"properties":{"b":{"type":"text"},"c":{"type":"long"}},"dynamic_templates":[{"longs":{"match_mapping_type":"long","mapping":{"type":"integer"}}}]}}`, 200, putWarn, ""},
		{"type t inherited", "GET", "/e/_mapping/t?include_type_name=true", "", 200, getWarn,
			`{"e":{"mappings":{"t":{"date_detection":false,"dynamic_templates":[{"longs":{"match_mapping_type":"long","mapping":{"type":"integer"}}},{"strings":{"match_mapping_type":"string","mapping":{"type":"keyword"}}}],"properties":{"a":{"type":"keyword"},"b":{"type":"text"},"c":{"type":"long"}}}}}}`},
		{"inherited fields follow the merge rules", "PUT", "/e/_mapping", `{"properties":{"a":{"type":"long"}}}`, 400, "",
			`{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"mapper [a] cannot be changed from type [keyword] to [long]"}],"type":"illegal_argument_exception","reason":"mapper [a] cannot be changed from type [keyword] to [long]"},"status":400}`},
		{"ordinary updates still merge", "PUT", "/e/_mapping", `{"properties":{"d":{"type":"long"}}}`, 200, "", ""},
		{"merged", "GET", "/e/_mapping?filter_path=*.mappings.properties", "", 200, "",
			`{"e":{"mappings":{"properties":{"a":{"type":"keyword"},"b":{"type":"text"},"c":{"type":"long"},"d":{"type":"long"}}}}}`},

		// Several indices at once.
		{"comma list", "PUT", "/d,e/_mapping/_default_?include_type_name=true", `{"_source":{"enabled":false}}`, 200, putWarn + "\n" + defaultWarn, ""},
		{"wildcard", "PUT", "/e*/_mapping/_default_?include_type_name=true", `{"properties":{"w":{"type":"keyword"}}}`, 200, putWarn + "\n" + defaultWarn, ""},
		{"each index has its own", "GET", "/d,e/_mapping/_default_?include_type_name=true", "", 200, getWarn,
			`{"d":{"mappings":{"_default_":{"_source":{"enabled":false}}}},"e":{"mappings":{"_default_":{"properties":{"w":{"type":"keyword"}}}}}}`},

		// Typed create with _default_.
		{"typed create with _default_", "PUT", "/f?include_type_name=true",
			`{"mappings":{"_default_":{"dynamic":"strict","properties":{"a":{"type":"keyword"}}},"t":{"properties":{"b":{"type":"long"}}}}}`, 200, createWarn + "\n" + defaultWarn, ""},
		{"created type inherits", "GET", "/f/_mapping?include_type_name=true", "", 200, getWarn,
			`{"f":{"mappings":{"_default_":{"dynamic":"strict","properties":{"a":{"type":"keyword"}}},"t":{"dynamic":"strict","properties":{"a":{"type":"keyword"},"b":{"type":"long"}}}}}}`},
		{"typed create with only _default_", "PUT", "/g?include_type_name=true", `{"mappings":{"_default_":{"properties":{"a":{"type":"keyword"}}}}}`, 200, createWarn + "\n" + defaultWarn, ""},
		{"no type yet", "GET", "/g/_mapping?include_type_name=true", "", 200, getWarn, `{"g":{"mappings":{"_default_":{"properties":{"a":{"type":"keyword"}}}}}}`},
		{"typed create with a bad _default_", "PUT", "/h?include_type_name=true", `{"mappings":{"_default_":{"properties":{"x":{"type":"nope"}}}}}`, 400, createWarn,
			`{"error":{"root_cause":[{"type":"mapper_parsing_exception","reason":"No handler for type [nope] declared on field [x]"}],"type":"mapper_parsing_exception","reason":"Failed to parse mapping [_default_]: No handler for type [nope] declared on field [x]","caused_by":{"type":"mapper_parsing_exception","reason":"No handler for type [nope] declared on field [x]"}},"status":400}`},
		{"untyped create keeps refusing a type name", "PUT", "/h", `{"mappings":{"_default_":{}}}`, 400, "",
			`{"error":{"root_cause":[{"type":"mapper_parsing_exception","reason":"Root mapping definition has unsupported parameters:  [_default_ : {}]"}],"type":"mapper_parsing_exception","reason":"Failed to parse mapping [_doc]: Root mapping definition has unsupported parameters:  [_default_ : {}]","caused_by":{"type":"mapper_parsing_exception","reason":"Root mapping definition has unsupported parameters:  [_default_ : {}]"}},"status":400}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantWarnedResponse(t, n, tc.method, tc.path, tc.body, tc.status, tc.warning, tc.want)
		})
	}
	// Defaults and inherited types survive a restart.
	n.Close()
	n = openTestNode(t, dir)
	wantWarnedResponse(t, n, "GET", "/d,f,g/_mapping?include_type_name=true", "", 200, getWarn,
		`{"d":{"mappings":{"_default_":{"_source":{"enabled":false}},"_doc":{"dynamic":"strict","properties":{"a":{"type":"long"}}}}},`+
			`"f":{"mappings":{"_default_":{"dynamic":"strict","properties":{"a":{"type":"keyword"}}},"t":{"dynamic":"strict","properties":{"a":{"type":"keyword"},"b":{"type":"long"}}}}},`+
			`"g":{"mappings":{"_default_":{"properties":{"a":{"type":"keyword"}}}}}}`)
	// The restored default still applies to g's first document.
	wantWarnedResponse(t, n, "PUT", "/g/_doc/1?refresh=true", `{"a":"x","n":1}`, 201, "", "")
	wantWarnedResponse(t, n, "GET", "/g/_mapping", "", 200, "", `{"g":{"mappings":{"properties":{"a":{"type":"keyword"},"n":{"type":"long"}}}}}`)
	// The cluster state lists the mappings by type, _default_ included.
	wantWarnedResponse(t, n, "GET", "/_cluster/state/metadata/g?filter_path=metadata.indices.*.mappings", "", 200, "",
		`{"metadata":{"indices":{"g":{"mappings":{"_default_":{"properties":{"a":{"type":"keyword"}}},"_doc":{"properties":{"a":{"type":"keyword"},"n":{"type":"long"}}}}}}}}`)
}
