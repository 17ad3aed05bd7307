package mapping

import (
	"strings"
	"testing"
)

func TestRestrict(t *testing.T) {
	m, err := Parse([]byte(`{"properties":{
		"title":{"type":"text","fields":{"keyword":{"type":"keyword"}}},
		"salary":{"type":"long"},
		"owner":{"properties":{"name":{"type":"keyword"},"ssn":{"type":"keyword"}}},
		"secret":{"properties":{"a":{"type":"keyword"}}}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	allowed := func(p string) bool { return p == "title" || strings.HasPrefix(p, "owner.") && p != "owner.ssn" }
	r := m.Restrict(allowed)
	if got, want := strings.Join(r.FieldPaths(), ","), "owner.name,title,title.keyword"; got != want {
		t.Errorf("restricted leaves = %s, want %s", got, want)
	}
	for _, p := range []string{"salary", "owner.ssn", "secret", "secret.a"} {
		if r.Lookup(p) != nil {
			t.Errorf("%s still mapped", p)
		}
	}
	if r.Lookup("owner") == nil || !r.Lookup("owner").IsObject() {
		t.Error("owner object lost")
	}
	if got := strings.Join(m.FieldPaths(), ","); got != "owner.name,owner.ssn,salary,secret.a,title,title.keyword" {
		t.Errorf("original changed: %s", got)
	}
}
