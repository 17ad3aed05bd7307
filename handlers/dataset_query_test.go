package handlers_test

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestDatasets runs every dataset table on one node loaded once.
func TestDatasets(t *testing.T) {
	if testing.Short() {
		t.Skip("dataset tests load 26k documents")
	}
	f := newDSFixture(t)
	t.Run("cities/queries", f.cityQueries)
	t.Run("cities/scores", f.cityScores)
	t.Run("emails/queries", f.emailQueries)
	t.Run("cities/sort", f.citySorts)
	t.Run("emails/sort", f.emailSorts)
	t.Run("cities/aggs", f.cityAggs)
	t.Run("cities/terms_shards", f.cityTermsShards)
	t.Run("cities/sort_and_aggs_same_field", f.citySortAndAggs)
	t.Run("cities/pipeline_gaps", f.cityPipelineGaps)
	t.Run("cities/max_buckets_setting", f.cityMaxBuckets)
	t.Run("cities/numeric_format", f.cityNumericFormat)
	t.Run("cities/terms_order_paths", f.cityTermsOrderPaths)
	t.Run("emails/aggs", f.emailAggs)
	t.Run("cities/bad_input", f.cityBadInput)
}

// haversine is Elasticsearch's arc distance in meters.
func haversine(lat1, lon1, lat2, lon2 float64) float64 {
	const r = 6371008.7714
	rad := math.Pi / 180
	dlat, dlon := (lat2-lat1)*rad, (lon2-lon1)*rad
	a := math.Sin(dlat/2)*math.Sin(dlat/2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dlon/2)*math.Sin(dlon/2)
	return 2 * r * math.Asin(math.Sqrt(a))
}

// inPolygon is the even-odd ray casting test (lon = x, lat = y).
func inPolygon(lat, lon float64, poly [][2]float64) bool {
	in := false
	for i, j := 0, len(poly)-1; i < len(poly); j, i = i, i+1 {
		yi, xi, yj, xj := poly[i][0], poly[i][1], poly[j][0], poly[j][1]
		if (yi > lat) != (yj > lat) && lon < (xj-xi)*(lat-yi)/(yj-yi)+xi {
			in = !in
		}
	}
	return in
}

func (f *dsFixture) cityQueries(t *testing.T) {
	cs := f.cities
	tok := func(w string) func(int) bool { return func(i int) bool { return hasTok(cs[i].tokens, w) } }
	anyTok := func(ws ...string) func(int) bool {
		return func(i int) bool {
			for _, w := range ws {
				if hasTok(cs[i].tokens, w) {
					return true
				}
			}
			return false
		}
	}
	fuzzyTok := func(w string, d, prefix int) func(int) bool {
		return func(i int) bool {
			for _, tk := range cs[i].tokens {
				if strings.HasPrefix(tk, w[:prefix]) && osa(tk, w) <= d {
					return true
				}
			}
			return false
		}
	}
	hasTag := func(i int, v string) bool {
		for _, t := range cs[i].Tags {
			if t == v {
				return true
			}
		}
		return false
	}
	// Vienna-centred geo checks must not hinge on rounding: no city may lie
	// within 50 m of the circle.
	const vlat, vlon, radius = 48.2082, 16.3738, 25000.0
	for _, c := range cs {
		if d := haversine(vlat, vlon, c.Lat, c.Lon); math.Abs(d-radius) < 50 {
			t.Fatalf("city %s lies %f m from the geo_distance circle", c.ID, d-radius)
		}
	}
	poly := [][2]float64{{47.0, 9.5}, {48.9, 13.0}, {46.5, 16.9}}
	pick := cs[123] // terms lookup source
	expansions := map[string]bool{}
	for _, c := range cs {
		for _, tk := range c.tokens {
			if strings.HasPrefix(tk, "jos") || strings.HasPrefix(tk, "ros") {
				expansions[tk] = true
			}
		}
	}
	if len(expansions) >= 50 {
		t.Fatalf("%d prefix expansions: max_expansions would cut them", len(expansions))
	}
	tests := []struct {
		name, query string
		want        func(i int) bool
	}{
		{"match_all", `{"match_all":{}}`, func(int) bool { return true }},
		{"match_all boost", `{"match_all":{"boost":2.5}}`, func(int) bool { return true }},
		{"match_none", `{"match_none":{}}`, func(int) bool { return false }},
		{"match or", `{"match":{"name":"san santa"}}`, anyTok("san", "santa")},
		{"match and", `{"match":{"name":{"query":"san josé","operator":"and"}}}`, func(i int) bool { return tok("san")(i) && tok("josé")(i) }},
		{"match minimum_should_match", `{"match":{"name":{"query":"san josé del","minimum_should_match":2}}}`, func(i int) bool {
			k := 0
			for _, w := range []string{"san", "josé", "del"} {
				if hasTok(cs[i].tokens, w) {
					k++
				}
			}
			return k >= 2
		}},
		{"match fuzziness AUTO", `{"match":{"name":{"query":"wienna","fuzziness":"AUTO"}}}`, fuzzyTok("wienna", 2, 0)},
		{"match fuzziness 1 prefix_length 2", `{"match":{"name":{"query":"lindan","fuzziness":1,"prefix_length":2}}}`, fuzzyTok("lindan", 1, 2)},
		{"match zero_terms_query all", `{"match":{"name":{"query":"---","zero_terms_query":"all"}}}`, func(int) bool { return true }},
		{"match_phrase", `{"match_phrase":{"name":"san juan"}}`, func(i int) bool { return hasPhrase(cs[i].tokens, "san", "juan") }},
		{"match_phrase_prefix", `{"match_phrase_prefix":{"name":"san jos"}}`, func(i int) bool {
			for j := 0; j+1 < len(cs[i].tokens); j++ {
				if cs[i].tokens[j] == "san" && strings.HasPrefix(cs[i].tokens[j+1], "jos") {
					return true
				}
			}
			return false
		}},
		{"match_bool_prefix", `{"match_bool_prefix":{"name":{"query":"santa ros","operator":"and"}}}`, func(i int) bool {
			if !tok("santa")(i) {
				return false
			}
			for _, tk := range cs[i].tokens {
				if strings.HasPrefix(tk, "ros") {
					return true
				}
			}
			return false
		}},
		{"multi_match best_fields", `{"multi_match":{"query":"AD","fields":["country","feature_code","name"]}}`, func(i int) bool {
			return cs[i].Country == "AD" || cs[i].Feature == "AD" || hasTok(cs[i].tokens, "ad")
		}},
		{"multi_match wildcard fields", `{"multi_match":{"query":"AT","fields":["countr*","tag*"]}}`, func(i int) bool { return cs[i].Country == "AT" || hasTag(i, "AT") }},
		{"combined_fields and", `{"combined_fields":{"query":"saint pierre","fields":["name"],"operator":"and"}}`, func(i int) bool { return tok("saint")(i) && tok("pierre")(i) }},
		{"query_string", `{"query_string":{"query":"name:(san* AND NOT sant) OR country:AD"}}`, func(i int) bool {
			if cs[i].Country == "AD" {
				return true
			}
			pre := false
			for _, tk := range cs[i].tokens {
				pre = pre || strings.HasPrefix(tk, "san")
			}
			return pre && !tok("sant")(i)
		}},
		{"query_string range and default_operator", `{"query_string":{"query":"country:AT population:[100000 TO *]","default_operator":"AND"}}`, func(i int) bool { return cs[i].Country == "AT" && cs[i].Pop >= 100000 }},
		{"query_string fuzzy and phrase", `{"query_string":{"query":"\"new york\" OR wiena~1","default_field":"name"}}`, func(i int) bool {
			return hasPhrase(cs[i].tokens, "new", "york") || fuzzyTok("wiena", 1, 0)(i)
		}},
		{"simple_query_string", `{"simple_query_string":{"query":"\"san jose\" | (santa + maria) -ana","fields":["name"],"default_operator":"and"}}`, func(i int) bool {
			return (hasPhrase(cs[i].tokens, "san", "jose") || tok("santa")(i) && tok("maria")(i)) && !tok("ana")(i)
		}},
		{"term", `{"term":{"country":"AD"}}`, func(i int) bool { return cs[i].Country == "AD" }},
		{"term numeric", `{"term":{"population":1052}}`, func(i int) bool { return cs[i].Pop == 1052 }},
		{"term case_insensitive", `{"term":{"feature_code":{"value":"ppla","case_insensitive":true}}}`, func(i int) bool { return cs[i].Feature == "PPLA" }},
		{"terms", `{"terms":{"country":["AD","AX","BT"]}}`, func(i int) bool { return cs[i].Country == "AD" || cs[i].Country == "AX" || cs[i].Country == "BT" }},
		{"terms lookup", `{"terms":{"country":{"index":"cities","id":"` + pick.ID + `","path":"tags"}}}`, func(i int) bool {
			for _, t := range pick.Tags {
				if cs[i].Country == t {
					return true
				}
			}
			return false
		}},
		{"terms on multi-valued", `{"terms":{"tags":["PPLC"]}}`, func(i int) bool { return hasTag(i, "PPLC") }},
		{"terms_set", `{"terms_set":{"tags":{"terms":["AT","PPLA","PPLA2"],"minimum_should_match_field":"msm"}}}`, func(i int) bool {
			k := 0
			for _, v := range []string{"AT", "PPLA", "PPLA2"} {
				if hasTag(i, v) {
					k++
				}
			}
			return k >= cs[i].Msm
		}},
		{"range long", `{"range":{"population":{"gte":50000,"lt":60000}}}`, func(i int) bool { return cs[i].Pop >= 50000 && cs[i].Pop < 60000 }},
		{"range gt lte", `{"range":{"population":{"gt":999999,"lte":2000000}}}`, func(i int) bool { return cs[i].Pop > 999999 && cs[i].Pop <= 2000000 }},
		{"range keyword", `{"range":{"admin_code":{"gte":"05","lt":"07"}}}`, func(i int) bool { return cs[i].Admin >= "05" && cs[i].Admin < "07" }},
		{"range multi-valued double", `{"range":{"coords":{"gte":95.5}}}`, func(i int) bool {
			for _, v := range cs[i].Coords {
				if v >= 95.5 {
					return true
				}
			}
			return false
		}},
		{"exists", `{"exists":{"field":"coords"}}`, func(i int) bool { return cs[i].Coords != nil }},
		{"exists sparse keyword", `{"exists":{"field":"alt_name"}}`, func(i int) bool { return cs[i].AltName != "" }},
		{"ids", `{"ids":{"values":["3039154","` + cs[500].ID + `","nope"]}}`, func(i int) bool { return cs[i].ID == "3039154" || i == 500 }},
		{"prefix", `{"prefix":{"name.kw":"San "}}`, func(i int) bool { return strings.HasPrefix(cs[i].Name, "San ") }},
		{"prefix on text", `{"prefix":{"name":{"value":"wien"}}}`, func(i int) bool {
			for _, tk := range cs[i].tokens {
				if strings.HasPrefix(tk, "wien") {
					return true
				}
			}
			return false
		}},
		{"wildcard", `{"wildcard":{"id":{"value":"30?9*4"}}}`, func(i int) bool {
			id := cs[i].ID
			return len(id) >= 5 && strings.HasPrefix(id, "30") && id[3] == '9' && strings.HasSuffix(id, "4")
		}},
		{"regexp", `{"regexp":{"admin_code":{"value":"0[1-3]|1.","flags":"ALL"}}}`, func(i int) bool {
			a := cs[i].Admin
			return len(a) == 2 && (a[0] == '0' && a[1] >= '1' && a[1] <= '3' || a[0] == '1')
		}},
		{"fuzzy", `{"fuzzy":{"feature_code":{"value":"PPLX","fuzziness":1}}}`, func(i int) bool { return osa(cs[i].Feature, "PPLX") <= 1 }},
		{"bool", `{"bool":{"must":[{"match":{"name":"san"}}],"filter":[{"range":{"population":{"gte":10000}}}],"must_not":[{"term":{"country":"CO"}}],"should":[{"term":{"country":"AR"}},{"term":{"country":"BR"}}],"minimum_should_match":1}}`, func(i int) bool {
			c := cs[i]
			return hasTok(c.tokens, "san") && c.Pop >= 10000 && c.Country != "CO" && (c.Country == "AR" || c.Country == "BR")
		}},
		{"bool nested should", `{"bool":{"should":[{"bool":{"filter":[{"term":{"country":"AT"}},{"range":{"population":{"gt":20000}}}]}},{"bool":{"must_not":[{"exists":{"field":"tags"}}],"filter":{"term":{"country":"CH"}}}}]}}`, func(i int) bool {
			c := cs[i]
			return c.Country == "AT" && c.Pop > 20000 || c.Tags == nil && c.Country == "CH"
		}},
		{"constant_score", `{"constant_score":{"filter":{"term":{"feature_code":"PPLC"}},"boost":3}}`, func(i int) bool { return cs[i].Feature == "PPLC" }},
		{"dis_max", `{"dis_max":{"queries":[{"term":{"country":"AD"}},{"term":{"feature_code":"PPLC"}}]}}`, func(i int) bool { return cs[i].Country == "AD" || cs[i].Feature == "PPLC" }},
		{"boosting", `{"boosting":{"positive":{"term":{"country":"AT"}},"negative":{"term":{"feature_code":"PPL"}},"negative_boost":0.5}}`, func(i int) bool { return cs[i].Country == "AT" }},
		{"function_score", `{"function_score":{"query":{"term":{"country":"BE"}},"field_value_factor":{"field":"population","modifier":"log1p"}}}`, func(i int) bool { return cs[i].Country == "BE" }},
		{"function_score min_score", `{"function_score":{"query":{"term":{"country":"BE"}},"field_value_factor":{"field":"population"},"boost_mode":"replace","min_score":100000}}`, func(i int) bool { return cs[i].Country == "BE" && cs[i].Pop >= 100000 }},
		{"geo_distance", fmt.Sprintf(`{"geo_distance":{"distance":"%gm","location":{"lat":%g,"lon":%g}}}`, radius, vlat, vlon), func(i int) bool {
			return haversine(vlat, vlon, cs[i].Lat, cs[i].Lon) <= radius
		}},
		{"geo_bounding_box", `{"geo_bounding_box":{"location":{"top_left":{"lat":47.51234,"lon":9.61234},"bottom_right":{"lat":47.01234,"lon":10.51234}}}}`, func(i int) bool {
			c := cs[i]
			return c.Lat <= 47.51234 && c.Lat >= 47.01234 && c.Lon >= 9.61234 && c.Lon <= 10.51234
		}},
		{"geo_polygon", `{"geo_polygon":{"location":{"points":[{"lat":47.0,"lon":9.5},{"lat":48.9,"lon":13.0},{"lat":46.5,"lon":16.9}]}}}`, func(i int) bool {
			return inPolygon(cs[i].Lat, cs[i].Lon, poly)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := sortedIDs(cs, func(c dsCity) string { return c.ID }, tc.want)
			if !strings.HasPrefix(tc.name, "match_all") && !strings.HasPrefix(tc.name, "match_none") && tc.name != "match zero_terms_query all" && (len(want) == 0 || len(want) == len(cs)) {
				t.Fatalf("test data selects %d of %d cities: the case cannot fail", len(want), len(cs))
			}
			body := f.search(t, "cities", `{"query":`+tc.query+`,"size":60,"sort":[{"id":"asc"}],"track_total_hits":true,"_source":false}`)
			checkHits(t, body, want, 60)
		})
	}
}

// cityScores checks scoring queries whose scores the data determines.
func (f *dsFixture) cityScores(t *testing.T) {
	cs := f.cities
	type scored struct {
		id    string
		score float64
	}
	tests := []struct {
		name, query string
		score       func(c dsCity) (float64, bool)
	}{
		{"constant_score boost", `{"constant_score":{"filter":{"term":{"country":"AD"}},"boost":4}}`, func(c dsCity) (float64, bool) { return 4, c.Country == "AD" }},
		{"dis_max tie_breaker over constant scores", `{"dis_max":{"tie_breaker":0.5,"queries":[
			{"constant_score":{"filter":{"term":{"country":"AT"}},"boost":2}},{"constant_score":{"filter":{"term":{"feature_code":"PPLA"}},"boost":3}}]}}`,
			func(c dsCity) (float64, bool) {
				switch {
				case c.Country == "AT" && c.Feature == "PPLA":
					return 3 + 0.5*2, true
				case c.Feature == "PPLA":
					return 3, true
				case c.Country == "AT":
					return 2, true
				}
				return 0, false
			}},
		{"bool should sums constant scores", `{"bool":{"should":[{"constant_score":{"filter":{"term":{"country":"CH"}},"boost":1}},
			{"constant_score":{"filter":{"range":{"population":{"gte":10000}}},"boost":5}}],"filter":{"terms":{"country":["CH","AT"]}}}}`,
			func(c dsCity) (float64, bool) {
				if c.Country != "CH" && c.Country != "AT" {
					return 0, false
				}
				s := 0.0
				if c.Country == "CH" {
					s++
				}
				if c.Pop >= 10000 {
					s += 5
				}
				return s, true // filter + should: should is optional
			}},
		{"boosting", `{"boosting":{"positive":{"constant_score":{"filter":{"term":{"country":"AD"}}}},"negative":{"term":{"feature_code":"PPL"}},"negative_boost":0.25}}`,
			func(c dsCity) (float64, bool) {
				if c.Country != "AD" {
					return 0, false
				}
				if c.Feature == "PPL" {
					return 0.25, true
				}
				return 1, true
			}},
		{"function_score field_value_factor replace", `{"function_score":{"query":{"term":{"country":"AT"}},"field_value_factor":{"field":"population","modifier":"log1p","factor":2},"boost_mode":"replace"}}`,
			func(c dsCity) (float64, bool) { return math.Log10(1 + 2*float64(c.Pop)), c.Country == "AT" }},
		{"function_score weight filters sum", `{"function_score":{"query":{"constant_score":{"filter":{"term":{"country":"AD"}}}},"functions":[
			{"filter":{"term":{"feature_code":"PPLA"}},"weight":3},{"filter":{"range":{"population":{"gte":5000}}},"weight":7}],"score_mode":"sum","boost_mode":"multiply"}}`,
			func(c dsCity) (float64, bool) {
				if c.Country != "AD" {
					return 0, false
				}
				s, any := 0.0, false
				if c.Feature == "PPLA" {
					s, any = s+3, true
				}
				if c.Pop >= 5000 {
					s, any = s+7, true
				}
				if !any {
					s = 1
				}
				return s, true
			}},
		{"match_all boost", `{"bool":{"filter":{"term":{"country":"AD"}},"must":{"match_all":{"boost":2.5}}}}`, func(c dsCity) (float64, bool) { return 2.5, c.Country == "AD" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var want []scored
			for _, c := range cs {
				if s, ok := tc.score(c); ok {
					want = append(want, scored{c.ID, float64(float32(s))})
				}
			}
			sort.Slice(want, func(i, j int) bool {
				if want[i].score != want[j].score {
					return want[i].score > want[j].score
				}
				return want[i].id < want[j].id
			})
			body := f.search(t, "cities", `{"query":`+tc.query+`,"size":40,"sort":["_score",{"id":"asc"}],"track_scores":true,"_source":false}`)
			if got := int(num(jsonPath(body, "hits.total.value"))); got != len(want) {
				t.Errorf("total = %d, want %d", got, len(want))
			}
			hits, _ := jsonPath(body, "hits.hits").([]any)
			if len(hits) != min(40, len(want)) {
				t.Fatalf("hits = %d, want %d", len(hits), min(40, len(want)))
			}
			for i, h := range hits {
				id, sc := jsonPath(h, "_id").(string), num(jsonPath(h, "_score"))
				if id != want[i].id || !near(sc, want[i].score, 1e-6) {
					t.Errorf("hit %d = %s %v, want %s %v", i, id, sc, want[i].id, want[i].score)
				}
			}
		})
	}
}

func (f *dsFixture) emailQueries(t *testing.T) {
	ms := f.mails
	tok := func(field string, w string) func(int) bool {
		return func(i int) bool {
			if field == "subject" {
				return hasTok(ms[i].subj, w)
			}
			return hasTok(ms[i].body, w)
		}
	}
	at := func(s string) time.Time { tm, _ := time.Parse(time.RFC3339, s); return tm }
	tests := []struct {
		name, query string
		want        func(i int) bool
	}{
		{"match subject", `{"match":{"subject":"linux"}}`, tok("subject", "linux")},
		{"match body and", `{"match":{"body":{"query":"python perl","operator":"and"}}}`, func(i int) bool { return tok("body", "python")(i) && tok("body", "perl")(i) }},
		{"match_phrase body", `{"match_phrase":{"body":"free software"}}`, func(i int) bool { return hasPhrase(ms[i].body, "free", "software") }},
		{"match_phrase slop", `{"match_phrase":{"subject":{"query":"new sequences","slop":1}}}`, func(i int) bool {
			tk := ms[i].subj
			for a := range tk {
				if tk[a] == "new" && (a+1 < len(tk) && tk[a+1] == "sequences" || a+2 < len(tk) && tk[a+2] == "sequences") {
					return true
				}
			}
			return false
		}},
		{"multi_match most_fields", `{"multi_match":{"query":"razor","fields":["subject^3","body"],"type":"most_fields"}}`, func(i int) bool { return tok("subject", "razor")(i) || tok("body", "razor")(i) }},
		{"multi_match phrase", `{"multi_match":{"query":"mailing list","fields":["subject","body"],"type":"phrase"}}`, func(i int) bool {
			return hasPhrase(ms[i].subj, "mailing", "list") || hasPhrase(ms[i].body, "mailing", "list")
		}},
		{"combined_fields", `{"combined_fields":{"query":"spamassassin razor","fields":["subject","body"],"operator":"and"}}`, func(i int) bool {
			return (tok("subject", "spamassassin")(i) || tok("body", "spamassassin")(i)) && (tok("subject", "razor")(i) || tok("body", "razor")(i))
		}},
		{"query_string fields", `{"query_string":{"query":"(linux OR unix) AND NOT spam:true","fields":["subject"]}}`, func(i int) bool {
			return (tok("subject", "linux")(i) || tok("subject", "unix")(i)) && !ms[i].Spam
		}},
		{"term boolean", `{"term":{"spam":true}}`, func(i int) bool { return ms[i].Spam }},
		{"term keyword", `{"term":{"group":"hard-ham-1"}}`, func(i int) bool { return ms[i].Group == "hard-ham-1" }},
		{"range date", `{"range":{"date":{"gte":"2002-09-01","lt":"2002-10-01"}}}`, func(i int) bool {
			return ms[i].HasDate && !ms[i].Date.Before(at("2002-09-01T00:00:00Z")) && ms[i].Date.Before(at("2002-10-01T00:00:00Z"))
		}},
		{"range date math rounding", `{"range":{"date":{"gte":"2002-09-15||/M","lte":"2002-09-15||/M"}}}`, func(i int) bool {
			return ms[i].HasDate && !ms[i].Date.Before(at("2002-09-01T00:00:00Z")) && ms[i].Date.Before(at("2002-10-01T00:00:00Z"))
		}},
		{"range date format time_zone", `{"range":{"date":{"gte":"01/08/2002","lt":"02/08/2002","format":"dd/MM/yyyy","time_zone":"+02:00"}}}`, func(i int) bool {
			return ms[i].HasDate && !ms[i].Date.Before(at("2002-07-31T22:00:00Z")) && ms[i].Date.Before(at("2002-08-01T22:00:00Z"))
		}},
		{"exists date", `{"exists":{"field":"date"}}`, func(i int) bool { return ms[i].HasDate }},
		{"exists subject", `{"bool":{"must_not":{"exists":{"field":"subject"}}}}`, func(i int) bool { return !ms[i].HasSubject }},
		{"wildcard keyword", `{"wildcard":{"from":"*@spamassassin.t?int.org>"}}`, func(i int) bool { return strings.HasSuffix(ms[i].From, "@spamassassin.taint.org>") }},
		{"prefix keyword", `{"prefix":{"from":"Robert"}}`, func(i int) bool { return strings.HasPrefix(ms[i].From, "Robert") }},
		{"regexp keyword", `{"regexp":{"group":"spam-[0-9]"}}`, func(i int) bool { return strings.HasPrefix(ms[i].Group, "spam-") }},
		{"fuzzy text", `{"fuzzy":{"subject":{"value":"linus","fuzziness":1}}}`, func(i int) bool {
			for _, tk := range ms[i].subj {
				if osa(tk, "linus") <= 1 {
					return true
				}
			}
			return false
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := sortedIDs(ms, func(e dsEmail) string { return e.ID }, tc.want)
			if len(want) == 0 || len(want) == len(ms) {
				t.Fatalf("test data selects %d of %d mails: the case cannot fail", len(want), len(ms))
			}
			body := f.search(t, "emails", `{"query":`+tc.query+`,"size":60,"sort":[{"id":"asc"}],"track_total_hits":true,"_source":false}`)
			checkHits(t, body, want, 60)
		})
	}
}
