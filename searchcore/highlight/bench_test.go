package highlight

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"testing"
)

// BenchmarkUnifiedEmails highlights the bodies of 200 messages of the
// emails dataset for a two-term match query.
func BenchmarkUnifiedEmails(b *testing.B) {
	f, err := os.Open("/work/shared/datasets/emails.ndjson.gz")
	if err != nil {
		b.Skip(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var sources [][]byte
	for len(sources) < 200 && sc.Scan() {
		var d struct{ Body string }
		_ = json.Unmarshal(sc.Bytes(), &d)
		src, _ := json.Marshal(map[string]string{"body": d.Body})
		sources = append(sources, src)
	}
	p := plan(b, `{"match":{"body":"linux kernel"}}`, `{"fields":{"body":{}}}`)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, src := range sources {
			if _, err := p.Highlight(src, string(rune('a'+j%26))); err != nil {
				b.Fatal(err)
			}
		}
	}
}
