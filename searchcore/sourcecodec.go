package searchcore

import (
	"context"
	"fmt"
	"runtime"

	"github.com/klauspost/compress/zstd"
)

// Stored sources are most of a small-document index (the cities data set's
// sources are a quarter of its bluge index), and bluge (ice) compresses
// each document's stored fields on its own with snappy, which saves next to
// nothing on a 150-byte JSON document. So once an index has seen enough
// documents, it keeps a zstd dictionary sampled from their sources in its
// metadata, and stores every later source compressed with it under
// compressedSourceFieldName: the cities sources take half their size. The
// dictionary never changes once set; sources stored before it stay plain
// under sourceFieldName (until replay rebuilds their documents, should a
// shard lack them). Compression is an
// optimisation only: a dictionary that cannot be made or saved leaves the
// sources plain.
const (
	// compressedSourceFieldName holds a source compressed with the
	// index's dictionary (sourceCodec.encode).
	compressedSourceFieldName = "_source_z"
	// sourceDictMinSample is how many bytes of sources one write request
	// must bring before a dictionary is sampled from them.
	sourceDictMinSample = 8 << 10
	// sourceDictSize is the most a dictionary holds: 16 KiB compress the
	// cities sources as well as 110 KiB do, and make each compression
	// cheaper (zstd loads the dictionary into its tables for every call).
	sourceDictSize = 16 << 10
	// sourceDictID is the id the dictionary has in every zstd frame.
	sourceDictID = 1
)

// sourceCodec compresses and decompresses sources with one dictionary.
// Both sides are safe for concurrent use.
type sourceCodec struct {
	enc *zstd.Encoder
	dec *zstd.Decoder
}

// newSourceCodec builds the codec of a dictionary.
func newSourceCodec(dict []byte) (*sourceCodec, error) {
	// Every index has a codec, and zstd allocates each of its encoders
	// whole once one is used: a 128 KiB window (sources are mostly far
	// smaller; a longer one only finds matches further back) and at most
	// four encoders keep a codec under 1 MB.
	workers := min(runtime.GOMAXPROCS(0), 4)
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderDictRaw(sourceDictID, dict), zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithEncoderConcurrency(workers), zstd.WithLowerEncoderMem(true), zstd.WithWindowSize(sourceWindow))
	if err != nil {
		return nil, err
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderDictRaw(sourceDictID, dict), zstd.WithDecoderConcurrency(workers),
		zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxMemory(maxSourceBytes))
	if err != nil {
		enc.Close()
		return nil, err
	}
	return &sourceCodec{enc: enc, dec: dec}, nil
}

// sourceWindow is the encoders' window.
const sourceWindow = 128 << 10

// maxSourceBytes bounds a decompressed source (http.max_content_length's
// ceiling): a damaged frame cannot make decoding allocate more.
const maxSourceBytes = 2 << 30

// encode compresses src.
func (c *sourceCodec) encode(src []byte) []byte {
	return c.enc.EncodeAll(src, make([]byte, 0, len(src)/2+16))
}

// decode decompresses what encode made.
func (c *sourceCodec) decode(b []byte) ([]byte, error) {
	return c.dec.DecodeAll(b, nil)
}

// sampleSourceDict picks a dictionary from sources: every stride-th source
// (stride: their bytes over sourceDictSize, so larger batches are sampled
// more sparsely), up to sourceDictSize bytes; nil when they hold fewer
// than sourceDictMinSample bytes.
func sampleSourceDict(sources [][]byte) []byte {
	total := 0
	for _, s := range sources {
		total += len(s)
	}
	if total < sourceDictMinSample {
		return nil
	}
	stride := max(1, total/sourceDictSize)
	dict := make([]byte, 0, sourceDictSize)
	for i := 0; i < len(sources) && len(dict) < sourceDictSize; i += stride {
		dict = append(dict, sources[i][:min(len(sources[i]), sourceDictSize-len(dict))]...)
	}
	return dict
}

// sourceCodec is the index's codec, nil until it has a dictionary.
func (ix *Index) sourceCodec() *sourceCodec { return ix.codec.Load() }

// storedSource turns a stored field of a hit into its source: ok is false
// for any other field.
func (ix *Index) storedSource(field string, value []byte) (src []byte, ok bool, err error) {
	switch field {
	case sourceFieldName:
		return append([]byte(nil), value...), true, nil
	case compressedSourceFieldName:
		c := ix.sourceCodec()
		if c == nil {
			return nil, true, fmt.Errorf("index [%s] has a compressed source but no source dictionary", ix.Name())
		}
		src, err := c.decode(value)
		return src, true, err
	}
	return nil, false, nil
}

// sampleSourceDicts gives each target index without a dictionary one
// sampled from the sources this write brings, when they are enough. It
// runs before the documents are parsed, so they are stored compressed,
// and saves the dictionary before any of them is committed. A failure
// leaves the index without one.
func (e *Engine) sampleSourceDicts(ctx context.Context, items []*writeItem) {
	wants := func(it *writeItem) bool {
		return it.err == nil && it.target != nil && (it.req.Op == OpIndex || it.req.Op == OpCreate) && it.target.sourceCodec() == nil
	}
	// Most writes go to indices with a dictionary, or are too small to
	// sample: they leave without allocating.
	total := 0
	for _, it := range items {
		if wants(it) {
			total += len(it.req.Source)
		}
	}
	if total < sourceDictMinSample {
		return
	}
	sources := map[*Index][][]byte{}
	for _, it := range items {
		if wants(it) {
			sources[it.target] = append(sources[it.target], it.req.Source)
		}
	}
	for ix, srcs := range sources {
		dict := sampleSourceDict(srcs)
		if dict == nil {
			continue
		}
		if err := ix.setSourceDict(ctx, dict); err != nil {
			e.log.Warn("no source dictionary", "index", ix.Name(), "error", err)
		}
	}
}

// setSourceDict saves dict in the index's metadata and starts using it,
// unless the index got one meanwhile.
func (ix *Index) setSourceDict(ctx context.Context, dict []byte) error {
	ix.metaMu.Lock()
	defer ix.metaMu.Unlock()
	if ix.codec.Load() != nil {
		return nil
	}
	c, err := newSourceCodec(dict)
	if err != nil {
		return err
	}
	m := *ix.meta
	m.SourceDict = dict
	if err := ix.engine.persistMeta(ctx, &m); err != nil {
		return err
	}
	ix.meta = &m
	ix.codec.Store(c)
	return nil
}
