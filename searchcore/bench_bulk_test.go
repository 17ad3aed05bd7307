package searchcore

import (
	"bytes"
	"fmt"
	"testing"
)

// benchBulkBody is a _bulk body of n city documents with explicit ids, the
// shape the benchmark tool sends.
func benchBulkBody(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "{\"index\":{\"_id\":\"%d\"}}\n", i)
		fmt.Fprintf(&b, `{"id":"%d","name":"Sant Julià de Lòria %d","country":"AD","feature_code":"PPLA","admin_code":"06","population":%d,"location":{"lat":42.46372,"lon":1.49129}}`+"\n", 3039163+i, i, 8022+i)
	}
	return b.Bytes()
}

// BenchmarkParseBulk measures bulk line parsing (action lines, source line
// checks) of a 1,000-document request; b.N counts requests.
func BenchmarkParseBulk(b *testing.B) {
	body := benchBulkBody(1000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		items, err := ParseBulk(body, BulkDefaults{Index: "cities"})
		if err != nil {
			b.Fatal(err)
		}
		if len(items) != 1000 {
			b.Fatalf("%d items", len(items))
		}
	}
}
