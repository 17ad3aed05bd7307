package searchcore

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"testing"
)

// decodeObjectSlow is decodeObject without the scanObject fast path: the
// reference the fast path must agree with.
func decodeObjectSlow(raw []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, io.ErrUnexpectedEOF
	}
	var out []member
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, io.ErrUnexpectedEOF
	}
	return out, nil
}

var scanObjectSeeds = []string{
	`{"index":{"_id":"1"}}`,
	` {"index" : {"_index":"a","_id":"2","routing":"r","version":3,"version_type":"external","require_alias":true}} `,
	`{"delete":{"_id":"x","if_seq_no":1,"if_primary_term":2}}`,
	`{}`, `{ }`, `{"a":[1,{"b":"]}"}],"c":null}`, `{"a":{"b":{"c":{}}},"d":-1.5e3}`,
	`{"a":"\u00e9"}`, `{"a\"b":1}`, `{"a":1,}`, `{"a":1}}`, `{"a":1} x`, `{"a":01}`, `{"a":tru}`,
	`{"a":"x` + "\x01" + `"}`, `{"a":"é"}`, "{\"\xff\":1}", `[1]`, `"s"`, `{"a" 1}`, `{"a":}`, `{"a":[}`, `{"a":{"b":1}`,
	`{"dup":1,"dup":2}`, "{\"a\":\t1\r\n}",
}

// TestScanObjectAgreesWithDecoder: where the fast path answers, it gives
// exactly the decoder's members; where the decoder fails, it never answers.
func TestScanObjectAgreesWithDecoder(t *testing.T) {
	fast := 0
	for _, s := range scanObjectSeeds {
		if checkScanObject(t, []byte(s)) {
			fast++
		}
	}
	// The simple shapes (first seven seeds, one duplicate-key and one
	// whitespace seed, one non-ASCII value) must take the fast path.
	if fast != 10 {
		t.Errorf("fast path answered %d seeds, want 10", fast)
	}
}

func checkScanObject(t *testing.T, raw []byte) bool {
	t.Helper()
	got, ok := scanObject(raw)
	want, err := decodeObjectSlow(raw)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("scanObject accepted %q, the decoder fails: %v", raw, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("scanObject(%q) = %q, decoder %q", raw, got, want)
	}
	return true
}

func FuzzScanObject(f *testing.F) {
	for _, s := range scanObjectSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkScanObject(t, raw) })
}
