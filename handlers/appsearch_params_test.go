package handlers

import (
	"encoding/json"
	"testing"
)

func TestParseBracketQuery(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `{}`},
		{"a=1", `{"a":"1"}`},
		{"page[size]=10&page[current]=2", `{"page":{"current":"2","size":"10"}}`},
		{"page%5Bsize%5D=10", `{"page":{"size":"10"}}`},
		{"ids[]=a&ids[]=b", `{"ids":["a","b"]}`},
		{"ids=a&ids=b&ids=c", `{"ids":["a","b","c"]}`},
		{"q[][f]=1&q[][g]=2&q[][f]=3", `{"q":[{"f":"1","g":"2"},{"f":"3"}]}`},
		{"filters[all][][states]=Maine&filters[all][][states]=Utah", `{"filters":{"all":[{"states":"Maine"},{"states":"Utah"}]}}`},
		{"a=x+y%21", `{"a":"x y!"}`},
		{"a", `{"a":""}`},
	} {
		got, err := parseBracketQuery(tc.in)
		if err != nil {
			t.Errorf("parseBracketQuery(%q) error %v", tc.in, err)
			continue
		}
		if b, _ := json.Marshal(got); string(b) != tc.want {
			t.Errorf("parseBracketQuery(%q) = %s; want %s", tc.in, b, tc.want)
		}
	}
	for _, bad := range []string{"[a]=1", "a[b=1", "a=1&a[b]=2", "a[b]=1&a=2", "a[]=1&a[b]=2", "a=%zz", "a[b][c][d][e][f][g][h][i]=1"} {
		if got, err := parseBracketQuery(bad); err == nil {
			t.Errorf("parseBracketQuery(%q) = %v; want an error", bad, got)
		}
	}
}

func TestMergeASRequest(t *testing.T) {
	for _, tc := range []struct{ query, body, want string }{
		{"page[size]=7", `{"page":{"current":2}}`, `{"page":{"current":2,"size":"7"}}`},
		{"page[size]=7", `{"page":{"size":1}}`, `{"page":{"size":1}}`},
		{"name=a", `{}`, `{"name":"a"}`},
		{"page[size]=7", `{"page":3}`, `{"page":3}`},
	} {
		q, _ := parseBracketQuery(tc.query)
		r, err := mergeASRequest(q, []byte(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := json.Marshal(r.Params); string(b) != tc.want {
			t.Errorf("merge(%q, %s) = %s; want %s", tc.query, tc.body, b, tc.want)
		}
	}
}

// FuzzParseBracketQuery checks the parser never panics and always yields
// JSON-encodable parameters.
func FuzzParseBracketQuery(f *testing.F) {
	for _, s := range []string{"page[size]=1", "ids[]=a&ids[]=b", "q[][f]=1&q[][f]=2", "a=1&a=2", "a[b][]=1", "%5B"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		m, err := parseBracketQuery(in)
		if err != nil {
			return
		}
		if _, err := json.Marshal(m); err != nil {
			t.Fatalf("parseBracketQuery(%q) = %v: %v", in, m, err)
		}
		if _, err := pageParams(m, 10, 100); err != nil {
			if _, ok := err.(interface{ Error() string }); !ok {
				t.Fatal(err)
			}
		}
	})
}
