package handlers_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// seedHighlight indexes the documents the highlight tests search.
func seedHighlight(t *testing.T, n *testNode) {
	t.Helper()
	code, body := n.do("PUT", "/hl", "application/json", `{"mappings":{"properties":{
		"text":{"type":"text","fields":{"fvh":{"type":"text","term_vector":"with_positions_offsets"}}},
		"about":{"type":"text"},"body":{"type":"text"},"title":{"type":"text","analyzer":"english"},
		"tag":{"type":"keyword"},"k2":{"type":"keyword","ignore_above":3},"message":{"type":"text"}}}}`)
	if code != 200 {
		t.Fatalf("create = %d %v", code, body)
	}
	docs := []string{
		`{"index":{"_id":"1"}}`,
		`{"text":"The quick brown fox is brown.","about":"I love to go rock climbing","tag":"Fox","k2":"123",
		  "body":["Quick thinking saved the day. The fox was quick! Then it ran away into the forest, never to be seen again by anyone.","second value with fox"],
		  "title":"Foxes are running <fast> & jumping"}`,
		`{"index":{"_id":"2"}}`,
		`{"text":"The quick brown fox went to the forest and saw another fox.","k2":"1234","about":"climbing is rock hard"}`,
		`{"index":{"_id":"3"}}`,
		`{"message":"some message with the number 1"}`,
	}
	var lines []string
	for _, d := range docs {
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(d)); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, b.String())
	}
	code, body = n.do("POST", "/hl/_bulk?refresh=true", "application/x-ndjson", strings.Join(lines, "\n")+"\n")
	if code != 200 || str(body["errors"]) != "false" {
		t.Fatalf("bulk = %d %v", code, body)
	}
}

func TestSearchHighlight(t *testing.T) {
	n := newTestNode(t)
	seedHighlight(t, n)
	tests := []struct {
		name, body string
		want       string // highlight of each hit, by _id order; "" for none
	}{
		{"multi_match over a field pattern (10_unified.yml)",
			`{"query":{"multi_match":{"query":"quick brown fox","fields":["text*"]}},"highlight":{"type":"unified","fields":{"*":{}}},"sort":["_id"]}`,
			`1={"text":["The <em>quick</em> <em>brown</em> <em>fox</em> is <em>brown</em>."],"text.fvh":["The <em>quick</em> <em>brown</em> <em>fox</em> is <em>brown</em>."]}` +
				`;2={"text":["The <em>quick</em> <em>brown</em> <em>fox</em> went to the forest and saw another <em>fox</em>."],"text.fvh":["The <em>quick</em> <em>brown</em> <em>fox</em> went to the forest and saw another <em>fox</em>."]}`},
		{"match_phrase marks phrase positions only",
			`{"query":{"match_phrase":{"about":"rock climbing"}},"highlight":{"fields":{"about":{}}}}`,
			`1={"about":["I love to go <em>rock</em> <em>climbing</em>"]}`},
		{"match_phrase with slop",
			`{"query":{"match_phrase":{"about":{"query":"climbing rock","slop":2}}},"highlight":{"fields":{"about":{}}},"sort":["_id"]}`,
			`1={"about":["I love to go <em>rock</em> <em>climbing</em>"]};2={"about":["<em>climbing</em> is <em>rock</em> hard"]}`},
		{"phrase across values and sentences",
			`{"query":{"match_phrase":{"body":"the fox"}},"highlight":{"fields":{"body":{}}}}`,
			`1={"body":["<em>The</em> <em>fox</em> was quick! Then it ran away into the forest, never to be seen again by anyone."]}`},
		{"fragment_size bounds the sentence on word boundaries",
			`{"query":{"match":{"body":"forest"}},"highlight":{"fields":{"body":{"fragment_size":20}}}}`,
			`1={"body":["it ran away into the <em>forest</em>"]}`},
		{"number_of_fragments 0 returns whole values with a match",
			`{"query":{"match":{"body":"fox"}},"highlight":{"fields":{"body":{"number_of_fragments":0}}}}`,
			`1={"body":["Quick thinking saved the day. The <em>fox</em> was quick! Then it ran away into the forest, never to be seen again by anyone.","second value with <em>fox</em>"]}`},
		{"fragments in document order, one per passage",
			`{"query":{"match":{"body":"quick fox"}},"highlight":{"fields":{"body":{"fragment_size":30}}}}`,
			`1={"body":["<em>Quick</em> thinking saved the day.","The <em>fox</em> was <em>quick</em>!","second value with <em>fox</em>"]}`},
		{"order score and number_of_fragments",
			`{"query":{"match":{"body":"quick fox"}},"highlight":{"order":"score","fields":{"body":{"fragment_size":30,"number_of_fragments":2}}}}`,
			`1={"body":["The <em>fox</em> was <em>quick</em>!","second value with <em>fox</em>"]}`},
		{"pre_tags and post_tags, per-field override",
			`{"query":{"match":{"about":"rock"}},"highlight":{"pre_tags":["<b>"],"post_tags":["</b>"],"fields":{"about":{"pre_tags":["["],"post_tags":["]"]}}},"sort":["_id"]}`,
			`1={"about":["I love to go [rock] climbing"]};2={"about":["climbing is [rock] hard"]}`},
		{"tags_schema styled",
			`{"query":{"match":{"about":"climbing"}},"highlight":{"tags_schema":"styled","fields":{"about":{}}},"sort":["_id"]}`,
			`1={"about":["I love to go rock <em class=\"hlt1\">climbing</em>"]};2={"about":["<em class=\"hlt1\">climbing</em> is rock hard"]}`},
		{"english analyzer stems the field text, html encoder escapes",
			`{"query":{"match":{"title":"fox jump"}},"highlight":{"encoder":"html","fields":{"title":{}}}}`,
			`1={"title":["<em>Foxes</em> are running &lt;fast&gt; &amp; <em>jumping</em>"]}`},
		{"prefix, wildcard and fuzzy expansions",
			`{"query":{"bool":{"should":[{"prefix":{"about":"cli"}},{"wildcard":{"text":"f?x"}},{"fuzzy":{"about":"rick"}}]}},"highlight":{"fields":{"about":{},"text":{}}},"sort":["_id"]}`,
			`1={"about":["I love to go <em>rock</em> <em>climbing</em>"],"text":["The quick brown <em>fox</em> is brown."]};` +
				`2={"about":["<em>climbing</em> is <em>rock</em> hard"],"text":["The quick brown <em>fox</em> went to the forest and saw another <em>fox</em>."]}`},
		{"require_field_match false highlights other fields",
			`{"query":{"match":{"about":"fox"}},"highlight":{"require_field_match":false,"fields":{"text":{}}}}`, ``},
		{"require_field_match false with a match elsewhere",
			`{"query":{"bool":{"must":[{"match":{"text":"forest"}}],"should":[{"match":{"about":"hard"}}]}},"highlight":{"require_field_match":false,"fields":{"about":{}}}}`,
			`2={"about":["climbing is rock <em>hard</em>"]}`},
		{"highlight_query replaces the query",
			`{"query":{"ids":{"values":["1"]}},"highlight":{"fields":{"about":{"highlight_query":{"match":{"about":"love"}}}}}}`,
			`1={"about":["I <em>love</em> to go rock climbing"]}`},
		{"no_match_size",
			`{"query":{"ids":{"values":["1"]}},"highlight":{"fields":{"text":{"no_match_size":12}}}}`,
			`1={"text":["The quick brown"]}`},
		{"plain highlighter",
			`{"query":{"match":{"text":"fox"}},"highlight":{"type":"plain","fields":{"text":{}}},"sort":["_id"]}`,
			`1={"text":["The quick brown <em>fox</em> is brown."]};2={"text":["The quick brown <em>fox</em> went to the forest and saw another <em>fox</em>."]}`},
		{"plain fragments by fragment_size, best first",
			`{"query":{"match":{"text":"forest"}},"highlight":{"type":"plain","fields":{"text":{"fragment_size":20}}}}`,
			`2={"text":[" went to the <em>forest</em>"]}`},
		{"plain simple fragmenter (highlighting docs)",
			`{"query":{"match_phrase":{"message":"number 1"}},"highlight":{"fields":{"message":{"type":"plain","fragment_size":15,"number_of_fragments":3,"fragmenter":"simple"}}}}`,
			`3={"message":[" with the <em>number</em>"," <em>1</em>"]}`},
		{"plain span fragmenter keeps the phrase (highlighting docs)",
			`{"query":{"match_phrase":{"message":"number 1"}},"highlight":{"fields":{"message":{"type":"plain","fragment_size":15,"number_of_fragments":3,"fragmenter":"span"}}}}`,
			`3={"message":[" with the <em>number</em> <em>1</em>"]}`},
		{"keyword field, dis_max and constant_score children",
			`{"query":{"dis_max":{"queries":[{"constant_score":{"filter":{"term":{"tag":"Fox"}}}}]}},"highlight":{"fields":{"tag":{}}}}`,
			`1={"tag":["<em>Fox</em>"]}`},
		{"ignored keyword values are not highlighted (40_keyword_ignore.yml)",
			`{"query":{"prefix":{"text":"qu"}},"highlight":{"require_field_match":false,"fields":{"k2":{}},"highlight_query":{"prefix":{"k2":"12"}}},"sort":["_id"]}`,
			`1={"k2":["<em>123</em>"]};2=`},
		{"must_not clauses are not highlighted",
			`{"query":{"bool":{"must":[{"match":{"about":"rock"}}],"must_not":[{"match":{"about":"love"}}]}},"highlight":{"fields":{"about":{}}}}`,
			`2={"about":["climbing is <em>rock</em> hard"]}`},
		{"fvh on a field with offsets term vectors; a pattern skips the others",
			`{"query":{"match":{"text.fvh":"forest"}},"highlight":{"type":"fvh","require_field_match":false,"fields":{"text*":{}}}}`,
			`2={"text.fvh":["The quick brown fox went to the <em>forest</em> and saw another fox."]}`},
		{"query_string and function_score",
			`{"query":{"function_score":{"query":{"query_string":{"query":"about:(rock AND hard)"}}}},"highlight":{"fields":{"about":{}}}}`,
			`2={"about":["climbing is <em>rock</em> <em>hard</em>"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var parts []string
			for _, h := range highlights(t, n, "hl", tt.body) {
				if h.Highlight == nil && !strings.Contains(tt.want, h.ID+"=") {
					continue
				}
				got := ""
				if h.Highlight != nil {
					got = str(h.Highlight)
				}
				parts = append(parts, h.ID+"="+got)
			}
			if got := strings.Join(parts, ";"); got != unescapeHTML(tt.want) {
				t.Errorf("highlight =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// hlHit is a hit's id and highlight.
type hlHit struct {
	ID        string              `json:"_id"`
	Highlight map[string][]string `json:"highlight"`
}

// highlights runs a search and returns its hits' highlights.
func highlights(t *testing.T, n *testNode, index, body string) []hlHit {
	t.Helper()
	code, raw := n.raw("POST", "/"+index+"/_search", "application/json", body)
	if code != 200 {
		t.Fatalf("status = %d %s", code, raw)
	}
	var res struct {
		Hits struct {
			Hits []hlHit `json:"hits"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	return res.Hits.Hits
}

// unescapeHTML undoes encoding/json's HTML escaping in the expectations
// (str renders with json.Marshal, which escapes <, > and &).
func unescapeHTML(s string) string {
	b, _ := json.Marshal(s)
	var out string
	_ = json.Unmarshal(b, &out)
	return strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`).Replace(out)
}

func TestSearchHighlightErrors(t *testing.T) {
	n := newTestNode(t)
	seedHighlight(t, n)
	tests := []struct {
		name, body, errType, reason string
	}{
		{"unknown option", `{"highlight":{"fields":{"text":{}},"bogus":1}}`, "parsing_exception", "[highlight] unknown field [bogus]"},
		{"unknown field option", `{"highlight":{"fields":{"text":{"bogus":1}}}}`, "parsing_exception", "[highlight_field] unknown field [bogus]"},
		{"unknown type", `{"highlight":{"type":"postings","fields":{"text":{}}}}`, "search_phase_execution_exception/illegal_argument_exception", "unknown highlighter type [postings] for the field [text]"},
		{"unknown tags schema", `{"highlight":{"tags_schema":"bold","fields":{"text":{}}}}`, "illegal_argument_exception", "Unknown tag schema [bold]"},
		{"pre_tags without post_tags", `{"highlight":{"pre_tags":["<b>"],"fields":{"text":{}}}}`, "illegal_argument_exception", "pre_tags are set but post_tags are not set"},
		{"bad fragment_size", `{"highlight":{"fragment_size":"x","fields":{"text":{}}}}`, "parsing_exception", "[highlight] fragment_size doesn't support values of type: VALUE_STRING"},
		{"negative number_of_fragments", `{"highlight":{"number_of_fragments":-1,"fields":{"text":{}}}}`, "illegal_argument_exception", "[number_of_fragments] must be greater than or equal to 0"},
		{"fields array with two members", `{"highlight":{"fields":[{"a":{},"b":{}}]}}`, "illegal_argument_exception", "If highlighter fields is an array it must contain objects containing a single field"},
		{"unknown fragmenter", `{"highlight":{"type":"plain","fragmenter":"x","fields":{"text":{}}}}`, "search_phase_execution_exception/illegal_argument_exception", "unknown fragmenter option [x] for the field [text]"},
		{"chars boundary scanner with unified", `{"highlight":{"boundary_scanner":"chars","fields":{"text":{}}}}`, "search_phase_execution_exception/illegal_argument_exception", "Invalid boundary scanner type: CHARS"},
		{"bad highlight_query", `{"highlight":{"fields":{"text":{"highlight_query":{"nope":{}}}}}}`, "parsing_exception", "unknown query [nope]"},
		{"fvh on a field without offsets term vectors", `{"query":{"match":{"text":"fox"}},"highlight":{"type":"fvh","fields":{"text":{}}}}`,
			"illegal_argument_exception", "the field [text] should be indexed with term vector with position offsets to be used with fast vector highlighter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := n.do("POST", "/hl/_search", "application/json", tt.body)
			if typ, reason := searchErrorOf(t, body); code != 400 || typ != tt.errType || reason != tt.reason {
				t.Errorf("= %d %s %q, want 400 %s %q", code, typ, reason, tt.errType, tt.reason)
			}
		})
	}
}

// TestSearchHighlightEmails highlights message bodies of the emails dataset
// and checks every fragment against the source independently: with the
// tags removed it is a trimmed piece of the body, every marked word is the
// query term in some letter case, unmarked occurrences are not left
// outside tags, and the fragment count and sizes follow the options.
func TestSearchHighlightEmails(t *testing.T) {
	const path = "/work/shared/datasets/emails.ndjson.gz"
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("dataset not available: %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	n := newTestNode(t)
	n.do("PUT", "/emails", "application/json", `{"mappings":{"properties":{"subject":{"type":"text"},"body":{"type":"text"},"id":{"type":"keyword"}}}}`)
	bodies := map[string]string{}
	var bulk strings.Builder
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for count := 0; count < 300 && sc.Scan(); count++ {
		var doc struct {
			ID, Subject, Body string
		}
		if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		bodies[doc.ID] = doc.Body
		src, _ := json.Marshal(map[string]string{"id": doc.ID, "subject": doc.Subject, "body": doc.Body})
		fmt.Fprintf(&bulk, "{\"index\":{\"_id\":%q}}\n%s\n", doc.ID, src)
	}
	if code, body := n.do("POST", "/emails/_bulk?refresh=true", "application/x-ndjson", bulk.String()); code != 200 || str(body["errors"]) != "false" {
		t.Fatalf("bulk = %d", code)
	}
	tag := regexp.MustCompile(`<em>(.*?)</em>`)
	// a word as the standard tokenizer keeps it whole ("linux.ie" is one)
	word := regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9.'@_]*`)
	for _, term := range []string{"sequence", "perl", "linux", "money"} {
		for _, opts := range []struct{ size, frags int }{{100, 5}, {40, 2}, {150, 1}} {
			t.Run(fmt.Sprintf("%s/%d/%d", term, opts.size, opts.frags), func(t *testing.T) {
				q := fmt.Sprintf(`{"size":50,"_source":false,"query":{"match":{"body":%q}},"highlight":{"fields":{"body":{"fragment_size":%d,"number_of_fragments":%d}}}}`,
					term, opts.size, opts.frags)
				hits := highlights(t, n, "emails", q)
				if len(hits) == 0 {
					t.Fatalf("no hits for %q", term)
				}
				for _, h := range hits {
					frags := h.Highlight["body"]
					if len(frags) == 0 || len(frags) > opts.frags {
						t.Fatalf("%s: %d fragments, want 1..%d", h.ID, len(frags), opts.frags)
					}
					src := bodies[h.ID]
					marked := 0
					for _, fr := range frags {
						for _, m := range tag.FindAllStringSubmatch(fr, -1) {
							marked++
							if !strings.EqualFold(m[1], term) {
								t.Errorf("%s: marked %q, want %q", h.ID, m[1], term)
							}
						}
						plain := strings.NewReplacer("<em>", "", "</em>", "").Replace(fr)
						if !strings.Contains(src, plain) || plain != strings.TrimSpace(plain) {
							t.Errorf("%s: fragment %q is not a trimmed piece of the body", h.ID, plain)
						}
						// a sentence longer than fragment_size is cut around the
						// first match to fragment_size plus the words it splits
						if l := len([]rune(plain)); l > 3*opts.size+len(term) && !strings.Contains(plain, "\n") {
							t.Errorf("%s: fragment of %d chars for fragment_size %d", h.ID, l, opts.size)
						}
						outside := tag.ReplaceAllString(fr, "")
						for _, w := range word.FindAllString(outside, -1) {
							if strings.EqualFold(strings.TrimRight(w, ".'"), term) {
								t.Errorf("%s: unmarked %q in %q", h.ID, w, fr)
							}
						}
					}
					if marked == 0 {
						t.Errorf("%s: no marked term in %q", h.ID, frags)
					}
				}
			})
		}
	}
}

// TestSearchHighlightMaxAnalyzedOffset follows 30_max_analyzed_offset.yml
// (the 7.x cases): text over index.highlight.max_analyzed_offset fails
// unless the unified highlighter has indexed offsets.
func TestSearchHighlightMaxAnalyzedOffset(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/test1", "application/json", `{"settings":{"number_of_shards":1,"index.highlight.max_analyzed_offset":30},
		"mappings":{"properties":{"field1":{"type":"text"},"field2":{"type":"text","index_options":"offsets"}}}}`)
	n.do("PUT", "/test1/_doc/1?refresh=true", "application/json",
		`{"field1":"The quick brown fox went to the forest and saw another fox.","field2":"The quick brown fox went to the forest and saw another fox."}`)
	const reason = "The length of [%s] field of [1] doc of [test1] index has exceeded [30] - maximum allowed to be analyzed for highlighting. " +
		"This maximum can be set by changing the [index.highlight.max_analyzed_offset] index level setting. For large texts, indexing with offsets or term vectors is recommended!"
	tests := []struct{ typ, field, want string }{
		{"unified", "field1", fmt.Sprintf(reason, "field1")},
		{"plain", "field1", fmt.Sprintf(reason, "field1")},
		{"unified", "field2", `{"field2":["The quick brown <em>fox</em> went to the forest and saw another <em>fox</em>."]}`},
		{"plain", "field2", fmt.Sprintf(reason, "field2")},
	}
	for _, tt := range tests {
		t.Run(tt.typ+"/"+tt.field, func(t *testing.T) {
			q := fmt.Sprintf(`{"query":{"match":{%q:"fox"}},"highlight":{"type":%q,"fields":{%q:{}}}}`, tt.field, tt.typ, tt.field)
			code, body := n.do("POST", "/test1/_search", "application/json", q)
			if strings.HasPrefix(tt.want, "{") {
				hl := jsonPath(body, "hits.hits.0.highlight")
				if code != 200 || unescapeHTML(tt.want) != str(hl) {
					t.Errorf("= %d %s, want %s", code, str(hl), tt.want)
				}
				return
			}
			if code != 400 || errType(body) != "illegal_argument_exception" || errReason(body) != tt.want {
				t.Errorf("= %d %s %q", code, errType(body), errReason(body))
			}
		})
	}
}

// TestSearchHighlightRawTags checks the tags are written as Elasticsearch
// writes them, not as \u003c escapes.
func TestSearchHighlightRawTags(t *testing.T) {
	n := newTestNode(t)
	seedHighlight(t, n)
	code, raw := n.raw("POST", "/hl/_search", "application/json", `{"query":{"match":{"about":"love"}},"highlight":{"fields":{"about":{}}}}`)
	if want := `"highlight":{"about":["I <em>love</em> to go rock climbing"]}`; code != 200 || !bytes.Contains(raw, []byte(want)) {
		t.Errorf("= %d %s, want it to contain %s", code, raw, want)
	}
}

// TestSearchHighlightCharFilters highlights text whose analyzer strips HTML:
// the marks land on the words of the original text.
func TestSearchHighlightCharFilters(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/cf", "application/json", `{"settings":{"analysis":{"analyzer":{"a":{"type":"custom","tokenizer":"standard",
		"char_filter":["html_strip"],"filter":["lowercase"]}}}},"mappings":{"properties":{"t":{"type":"text","analyzer":"a"}}}}`)
	n.do("PUT", "/cf/_doc/1?refresh=true", "application/json", `{"t":"<p>A <b>Bold</b> move, <i>boldly</i> made</p>"}`)
	for _, typ := range []string{"unified", "plain"} {
		hits := highlights(t, n, "cf", `{"query":{"match":{"t":"bold made"}},"highlight":{"type":"`+typ+`","fields":{"t":{}}}}`)
		if len(hits) != 1 || str(hits[0].Highlight) != unescapeHTML(`{"t":["<p>A <b><em>Bold</em></b> move, <i>boldly</i> <em>made</em></p>"]}`) {
			t.Errorf("%s: %+v", typ, hits)
		}
	}
}
