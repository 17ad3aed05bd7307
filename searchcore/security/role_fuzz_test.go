package security

import (
	"encoding/json"
	"testing"
)

// FuzzParseRoleDescriptor: the parser never panics, and what it accepts
// re-encodes into a descriptor it parses to the same JSON.
func FuzzParseRoleDescriptor(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `{"cluster":["all"]}`, `{"cluster":"monitor"}`,
		`{"indices":[{"names":["logs-*"],"privileges":["read"],"query":{"term":{"a":1}},"field_security":{"grant":["*"],"except":["secret"]}}]}`,
		`{"indices":[{"names":"x","privileges":["read"],"query":"{\"match_all\":{}}"}]}`,
		`{"run_as":["bob"],"metadata":{"v":1},"applications":[{"application":"app","privileges":["read"],"resources":["*"]}]}`,
		`{"indices":[{"names":["/lo.*/"],"privileges":["all"]}]}`, `{"nope":1}`, `[1]`, `{"indices":{}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		rd, err := ParseRoleDescriptor("fuzz", body)
		if err != nil {
			return
		}
		_ = rd.Validate()
		enc, err := json.Marshal(rd)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		again, err := ParseRoleDescriptor("fuzz", enc)
		if err != nil {
			t.Fatalf("re-parse of %s: %v", enc, err)
		}
		enc2, _ := json.Marshal(again)
		if string(enc) != string(enc2) {
			t.Fatalf("not stable:\n%s\n%s", enc, enc2)
		}
	})
}

func TestParseRoleDescriptorErrors(t *testing.T) {
	cases := []struct {
		body, typ, reason string
	}{
		{`{"nope":1}`, "parse_exception", "failed to parse role [r]. unexpected field [nope]"},
		{`[1]`, "parse_exception", "failed to parse role [r]. expected an object but found [START_ARRAY] instead"},
		{`{"indices":{}}`, "parse_exception", "failed to parse role [r]. expected field [indices] value to be an array, but found [START_OBJECT] instead"},
		{`{"indices":[{"privileges":["read"]}]}`, "parse_exception", "failed to parse indices privileges for role [r]. missing required [names] field"},
		{`{"indices":[{"names":["a"]}]}`, "parse_exception", "failed to parse indices privileges for role [r]. missing required [privileges] field"},
		{`{"indices":[{"names":["a"],"privileges":["read"],"query":5}]}`, "parse_exception", "failed to parse indices privileges for role [r]. expected field [query] value to be a string or an object, but found [VALUE_NUMBER] instead"},
		{`{"indices":[{"names":["a"],"privileges":["read"],"field_security":{"grant":["a"],"except":["b"]}}]}`, "illegal_argument_exception", "Exceptions for field permissions must be a subset of the granted fields but [b] is not a subset of [a]"},
	}
	for _, tc := range cases {
		_, err := ParseRoleDescriptor("r", []byte(tc.body))
		e, ok := err.(interface{ Error() string })
		if !ok || err == nil {
			t.Errorf("%s: no error", tc.body)
			continue
		}
		if got := e.Error(); got != tc.typ+": "+tc.reason {
			t.Errorf("%s:\n got %s\nwant %s: %s", tc.body, got, tc.typ, tc.reason)
		}
	}
	rd, _ := ParseRoleDescriptor("r", []byte(`{"cluster":["bogus"],"indices":[{"names":["a"],"privileges":["reed"]}]}`))
	err := rd.Validate()
	if err == nil || err.Error() != "action_request_validation_exception: Validation Failed: 1: unknown cluster privilege [bogus]. a privilege must be either one of the predefined cluster privilege names [all,manage,manage_api_key,manage_index_templates,manage_ingest_pipelines,manage_own_api_key,manage_security,manage_service_account,manage_token,manage_transform,monitor,monitor_transform] or a pattern over one of the available cluster actions;2: unknown index privilege [reed]. a privilege must be either one of the predefined fixed indices privileges [all,auto_configure,create,create_doc,create_index,delete,delete_index,index,maintenance,manage,monitor,none,read,read_cross_cluster,view_index_metadata,write] or a pattern over one of the available index actions;" {
		t.Errorf("validate: %v", err)
	}
}
