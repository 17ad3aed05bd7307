package handlers_test

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// modeValue reduces a multi-valued field like Elasticsearch's sort modes.
func modeValue(vs []float64, mode string) float64 {
	s := slices.Clone(vs)
	sort.Float64s(s)
	switch mode {
	case "min":
		return s[0]
	case "max":
		return s[len(s)-1]
	case "sum", "avg":
		t := 0.0
		for _, v := range s {
			t += v
		}
		if mode == "avg" {
			return t / float64(len(s))
		}
		return t
	case "median":
		if len(s)%2 == 1 {
			return s[len(s)/2]
		}
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	panic(mode)
}

// numericKey is a sort key over a possibly missing number: missing is
// "_first", "_last" or a replacement value.
type numericKey struct {
	value   func(i int) (float64, bool)
	desc    bool
	missing string
}

func (k numericKey) compare(i, j int) int {
	vi, oki := k.value(i)
	vj, okj := k.value(j)
	if !oki && k.missing != "_first" && k.missing != "_last" {
		fmt.Sscan(k.missing, &vi)
		oki = true
	}
	if !okj && k.missing != "_first" && k.missing != "_last" {
		fmt.Sscan(k.missing, &vj)
		okj = true
	}
	switch {
	case !oki && !okj:
		return 0
	case !oki:
		if k.missing == "_first" {
			return -1
		}
		return 1
	case !okj:
		if k.missing == "_first" {
			return 1
		}
		return -1
	}
	c := cmp.Compare(vi, vj)
	if k.desc {
		c = -c
	}
	return c
}

func (f *dsFixture) citySorts(t *testing.T) {
	cs := f.cities
	coords := func(mode string) func(int) (float64, bool) {
		return func(i int) (float64, bool) {
			if cs[i].Coords == nil {
				return 0, false
			}
			return modeValue(cs[i].Coords, mode), true
		}
	}
	pop := func(i int) (float64, bool) { return float64(cs[i].Pop), true }
	byID := func(i, j int) int { return strings.Compare(cs[i].ID, cs[j].ID) }
	byStr := func(get func(int) (string, bool), desc bool) func(i, j int) int {
		return func(i, j int) int {
			a, oka := get(i)
			b, okb := get(j)
			switch {
			case !oka && !okb:
				return 0
			case !oka:
				return 1
			case !okb:
				return -1
			}
			if desc {
				return strings.Compare(b, a)
			}
			return strings.Compare(a, b)
		}
	}
	tags := func(max bool) func(int) (string, bool) {
		return func(i int) (string, bool) {
			if cs[i].Tags == nil {
				return "", false
			}
			s := slices.Clone(cs[i].Tags)
			sort.Strings(s)
			if max {
				return s[len(s)-1], true
			}
			return s[0], true
		}
	}
	numK := func(k numericKey) func(i, j int) int { return k.compare }
	tests := []struct {
		name, sort string
		from       int
		keys       []func(i, j int) int
		// sortValue is the expected first sort value of a hit (nil: not checked)
		sortValue func(i int) (float64, bool)
	}{
		{"multi-valued asc uses min, missing last", `[{"coords":"asc"},{"id":"asc"}]`, 0, []func(i, j int) int{numK(numericKey{coords("min"), false, "_last"}), byID}, coords("min")},
		{"multi-valued desc uses max", `[{"coords":{"order":"desc"}},{"id":"asc"}]`, 0, []func(i, j int) int{numK(numericKey{coords("max"), true, "_last"}), byID}, coords("max")},
		{"missing _first", `[{"coords":{"order":"desc","missing":"_first"}},{"id":"asc"}]`, 0, []func(i, j int) int{numK(numericKey{coords("max"), true, "_first"}), byID}, nil},
		{"missing _last deep page", `[{"coords":{"order":"asc","missing":"_last"}},{"id":"asc"}]`, 17100, []func(i, j int) int{numK(numericKey{coords("min"), false, "_last"}), byID}, nil},
		{"mode max asc", `[{"coords":{"order":"asc","mode":"max"}},{"id":"asc"}]`, 0, []func(i, j int) int{numK(numericKey{coords("max"), false, "_last"}), byID}, coords("max")},
		{"mode min desc", `[{"coords":{"order":"desc","mode":"min"}},{"id":"asc"}]`, 0, []func(i, j int) int{numK(numericKey{coords("min"), true, "_last"}), byID}, coords("min")},
		{"mode sum missing value", `[{"coords":{"order":"desc","mode":"sum","missing":150}},{"id":"asc"}]`, 0, []func(i, j int) int{numK(numericKey{coords("sum"), true, "150"}), byID}, nil},
		{"mode avg missing _first", `[{"coords":{"order":"asc","mode":"avg","missing":"_first"}},{"id":"asc"}]`, 2800, []func(i, j int) int{numK(numericKey{coords("avg"), false, "_first"}), byID}, coords("avg")},
		{"mode median", `[{"coords":{"order":"desc","mode":"median"}},{"id":"asc"}]`, 0, []func(i, j int) int{numK(numericKey{coords("median"), true, "_last"}), byID}, coords("median")},
		{"mode median asc mid page", `[{"coords":{"order":"asc","mode":"median"}},{"id":"asc"}]`, 9000, []func(i, j int) int{numK(numericKey{coords("median"), false, "_last"}), byID}, coords("median")},
		{"long desc", `[{"population":"desc"},{"id":"asc"}]`, 0, []func(i, j int) int{numK(numericKey{pop, true, "_last"}), byID}, pop},
		{"multiple keys", `[{"country":"asc"},{"population":{"order":"desc"}},"id"]`, 5000, []func(i, j int) int{
			func(i, j int) int { return strings.Compare(cs[i].Country, cs[j].Country) }, numK(numericKey{pop, true, "_last"}), byID}, nil},
		{"unmapped_type", `[{"no_such_field":{"order":"asc","unmapped_type":"long"}},{"population":"asc"},{"id":"desc"}]`, 0, []func(i, j int) int{
			numK(numericKey{pop, false, "_last"}), func(i, j int) int { return -byID(i, j) }}, nil},
		{"keyword multi-valued asc", `[{"tags":"asc"},{"id":"asc"}]`, 0, []func(i, j int) int{byStr(tags(false), false), byID}, nil},
		{"keyword multi-valued desc uses max", `[{"tags":"desc"},{"id":"asc"}]`, 0, []func(i, j int) int{byStr(tags(true), true), byID}, nil},
		{"keyword desc", `[{"name.kw":"desc"},{"id":"asc"}]`, 100, []func(i, j int) int{byStr(func(i int) (string, bool) { return cs[i].Name, true }, true), byID}, nil},
		{"long asc missing _first", `[{"population":{"order":"asc","missing":"_first"}},{"id":"asc"}]`, 0, []func(i, j int) int{numK(numericKey{pop, false, "_first"}), byID}, pop},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			order := orderBy(len(cs), tc.keys)
			const size = 40
			var want []string
			for _, i := range order[tc.from:min(tc.from+size, len(order))] {
				want = append(want, cs[i].ID)
			}
			body := f.search(t, "cities", fmt.Sprintf(`{"from":%d,"size":%d,"sort":%s,"_source":false}`, tc.from, size, tc.sort))
			if got := strings.Join(hitIDs(body), ","); got != strings.Join(want, ",") {
				t.Errorf("ids =\n %s\nwant\n %s", got, strings.Join(want, ","))
			}
			if tc.sortValue == nil {
				return
			}
			hits, _ := jsonPath(body, "hits.hits").([]any)
			for k, h := range hits {
				v, ok := tc.sortValue(order[tc.from+k])
				if !ok {
					continue
				}
				if got := num(jsonPath(h, "sort.0")); !near(got, v, 1e-12) {
					t.Errorf("hit %d sort value = %v, want %v", k, got, v)
				}
			}
		})
	}
}

func (f *dsFixture) emailSorts(t *testing.T) {
	ms := f.mails
	date := func(i int) (float64, bool) { return float64(ms[i].Date.UnixMilli()), ms[i].HasDate }
	byID := func(i, j int) int { return strings.Compare(ms[i].ID, ms[j].ID) }
	subj := func(i, j int) int {
		a, b := ms[i], ms[j]
		switch {
		case !a.HasSubject && !b.HasSubject:
			return 0
		case !a.HasSubject:
			return -1
		case !b.HasSubject:
			return 1
		}
		return strings.Compare(a.Subject, b.Subject)
	}
	tests := []struct {
		name, sort string
		from       int
		keys       []func(i, j int) int
	}{
		{"date desc missing _first", `[{"date":{"order":"desc","missing":"_first"}},{"id":"asc"}]`, 0, []func(i, j int) int{numericKey{date, true, "_first"}.compare, byID}},
		{"date asc missing _last tail", `[{"date":"asc"},{"id":"asc"}]`, 6000, []func(i, j int) int{numericKey{date, false, "_last"}.compare, byID}},
		{"keyword missing _first then date", `[{"subject.kw":{"order":"asc","missing":"_first"}},{"date":"desc"},{"id":"asc"}]`, 0, []func(i, j int) int{subj, numericKey{date, true, "_last"}.compare, byID}},
		{"group then spam then id", `[{"group":"desc"},{"spam":"asc"},{"id":"desc"}]`, 2490, []func(i, j int) int{
			func(i, j int) int { return strings.Compare(ms[j].Group, ms[i].Group) },
			func(i, j int) int { return cmp.Compare(b2i(ms[i].Spam), b2i(ms[j].Spam)) },
			func(i, j int) int { return -byID(i, j) }}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			order := orderBy(len(ms), tc.keys)
			var want []string
			for _, i := range order[tc.from:min(tc.from+40, len(order))] {
				want = append(want, ms[i].ID)
			}
			body := f.search(t, "emails", fmt.Sprintf(`{"from":%d,"size":40,"sort":%s,"_source":false}`, tc.from, tc.sort))
			if got := strings.Join(hitIDs(body), ","); got != strings.Join(want, ",") {
				t.Errorf("ids =\n %s\nwant\n %s", got, strings.Join(want, ","))
			}
		})
	}
}

// orderBy sorts the document numbers 0..n-1 by the comparison keys.
func orderBy(n int, keys []func(i, j int) int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		for _, k := range keys {
			if c := k(a, b); c != 0 {
				return c
			}
		}
		return 0
	})
	return order
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
