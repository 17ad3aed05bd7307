package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// dataset is an NDJSON file loaded in memory: one JSON document per line.
type dataset struct {
	name  string
	path  string
	docs  [][]byte
	bytes int64 // raw JSON bytes (lines without their newlines)
}

// loadDataset reads an NDJSON file (gzip-compressed when the name ends in
// .gz), keeping at most limit documents when limit > 0. Blank lines are
// skipped.
func loadDataset(name, path string, limit int) (*dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer gz.Close()
		r = gz
	}
	ds := &dataset{name: name, path: path}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		ds.docs = append(ds.docs, append([]byte(nil), line...))
		ds.bytes += int64(len(line))
		if limit > 0 && len(ds.docs) >= limit {
			break
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(ds.docs) == 0 {
		return nil, fmt.Errorf("%s: no documents", path)
	}
	return ds, nil
}

// docID is the _id given to the i-th document of a dataset, both in bulk
// requests and in the in-process ceiling, so both index the same ids.
func docID(i int) string { return strconv.Itoa(i + 1) }

// bulkBodies splits the dataset into _bulk request bodies of per documents.
func (ds *dataset) bulkBodies(per int) [][]byte {
	var out [][]byte
	for start := 0; start < len(ds.docs); start += per {
		end := min(start+per, len(ds.docs))
		var b bytes.Buffer
		for i := start; i < end; i++ {
			b.WriteString(`{"index":{"_id":"`)
			b.WriteString(docID(i))
			b.WriteString("\"}}\n")
			b.Write(ds.docs[i])
			b.WriteByte('\n')
		}
		out = append(out, b.Bytes())
	}
	return out
}
