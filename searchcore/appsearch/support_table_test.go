package appsearch_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/quarry-search/quarry/searchcore/appsearch"
)

// TestSupportTables walks every cell of SPEC.md's feature-support tables:
// an allowed combination searches, a disallowed one is one clear error.
func TestSupportTables(t *testing.T) {
	types := []string{"text", "number", "date", "geolocation"}
	value := map[string]string{"text": `"x"`, "number": `1`, "date": `"2020-01-01T00:00:00Z"`, "geolocation": `"1,1"`}
	rangeBound := map[string]string{"text": `"a"`, "number": `1`, "date": `"2020-01-01T00:00:00Z"`, "geolocation": `1`}
	// columns: name, request template (%[1]s field, %[2]s value, %[3]s range bound), the allowed types,
	// and the message of a disallowed cell (%s type, %s field).
	columns := []struct {
		name, body string
		allowed    map[string]bool
		msg        string
	}{
		{"search queries and search fields", `{"query":"x","search_fields":{"%[1]s":{}}}`, set("text"), "Search fields contains invalid field: %[2]s"},
		{"result fields", `{"query":"","result_fields":{"%[1]s":{"snippet":{}}}}`, set("text"), "%[1]s field %[2]s does not support result field options (raw size, snippet)"},
		{"value boosts", `{"query":"","boosts":{"%[1]s":{"type":"value","value":%[2]s}}}`, set("text", "number", "date", "geolocation"), ""},
		{"functional boosts", `{"query":"","boosts":{"%[1]s":{"type":"functional","function":"linear"}}}`, set("number"), "%[1]s field %[2]s does not support functional boosts"},
		{"proximity boosts", `{"query":"","boosts":{"%[1]s":{"type":"proximity","function":"linear","center":%[2]s}}}`, set("number", "geolocation"), "%[1]s field %[2]s does not support proximity boosts"},
		{"recency boosts", `{"query":"","boosts":{"%[1]s":{"type":"recency","function":"linear","use_current_time":true}}}`, set("date"), "%[1]s field %[2]s does not support recency boosts"},
		{"value facets", `{"query":"","facets":{"%[1]s":{"type":"value"}}}`, set("text", "number", "date"), "%[1]s field %[2]s does not support value facets"},
		{"range facets", `{"query":"","facets":{"%[1]s":{"type":"range","ranges":[{"from":%[3]s}]%[4]s}}}`, set("number", "date", "geolocation"), "%[1]s field %[2]s does not support range facets"},
		{"value filters", `{"query":"","filters":{"%[1]s":%[2]s}}`, set("text", "number", "date"), "%[1]s field %[2]s does not support value filters"},
		{"range filters", `{"query":"","filters":{"%[1]s":{"from":%[3]s}}}`, set("number", "date"), "%[1]s field %[2]s does not support range filters"},
		{"geo filters", `{"query":"","filters":{"%[1]s":{"center":"1,1","distance":1,"unit":"km"}}}`, set("geolocation"), "%[1]s field %[2]s does not support geo filters"},
		{"grouping", `{"query":"","group":{"field":"%[1]s"}}`, set("text", "number", "date"), "%[1]s field %[2]s does not support grouping"},
		{"sorting", `{"query":"","sort":{"%[1]s":%[5]s}}`, set("text", "number", "date", "geolocation"), "%[1]s field %[2]s does not support sorting"},
	}
	for _, rev := range []string{"earlier", "later"} {
		ctx := context.Background()
		svc := openService(t, t.TempDir(), appsearch.Config{})
		if _, err := svc.CreateEngine(ctx, appsearch.EngineSpec{Name: "cells", Revision: rev}); err != nil {
			t.Fatal(err)
		}
		schema := map[string]string{}
		for _, ty := range types {
			schema["f_"+ty] = ty
		}
		if _, err := svc.UpdateSchema(ctx, "cells", schema); err != nil {
			t.Fatal(err)
		}
		ss := appsearch.NewSearches(svc, nil)
		for _, col := range columns {
			for _, ty := range types {
				field := "f_" + ty
				extra, dir := "", `"asc"`
				if ty == "geolocation" {
					extra = `,"center":"1,1","unit":"km"`
					dir = `{"center":"1,1","order":"asc"}`
				}
				body := fmt.Sprintf(col.body, field, value[ty], rangeBound[ty], extra, dir)
				allowed := col.allowed[ty] && !(col.name == "sorting" && ty == "geolocation" && rev == "earlier")
				t.Run(rev+"/"+col.name+"/"+ty, func(t *testing.T) {
					_, err := ss.Search(ctx, "cells", []byte(body), "")
					if allowed {
						if err != nil {
							t.Fatalf("%s: %v", body, err)
						}
						return
					}
					want := []string{fmt.Sprintf(col.msg, ty, field)}
					if got := appsearch.ErrorMessages(err); !reflect.DeepEqual(got, want) {
						t.Errorf("%s: errors = %v, want %v", body, got, want)
					}
				})
			}
		}
		// Query suggestions draw from text fields only.
		for _, ty := range types {
			body := fmt.Sprintf(`{"query":"x","types":{"documents":{"fields":["f_%s"]}}}`, ty)
			t.Run(rev+"/query suggestions/"+ty, func(t *testing.T) {
				_, err := ss.QuerySuggestion(ctx, "cells", []byte(body), "")
				if ty == "text" {
					if err != nil {
						t.Fatal(err)
					}
					return
				}
				want := fmt.Sprintf("%s field f_%s does not support query suggestions", ty, ty)
				if got := appsearch.ErrorMessages(err); len(got) != 1 || !strings.EqualFold(got[0], want) {
					t.Errorf("errors = %v, want [%s]", got, want)
				}
			})
		}
	}
}

func set(l ...string) map[string]bool {
	m := map[string]bool{}
	for _, s := range l {
		m[s] = true
	}
	return m
}
