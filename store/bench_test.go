package store_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/store"
	"github.com/quarry-search/quarry/store/storetest"
)

// citySource is a cities-like document of about 500 bytes.
func citySource(i int) []byte {
	return fmt.Appendf(nil, `{"id":"%d","name":"City %d","ascii_name":"City %d","alternate_names":"%s",`+
		`"country":"AD","feature_class":"P","feature_code":"PPL","admin_code":"02","population":%d,`+
		`"elevation":1200,"timezone":"Europe/Andorra","modified":"2020-06-10",`+
		`"location":{"lat":42.57952,"lon":1.65362}}`,
		3039154+i, i, i, strings.Repeat("Alt Name,", 24), 1000+i)
}

func BenchmarkCommitDocs(b *testing.B) {
	ctx := context.Background()
	b.Run("batch1000", func(b *testing.B) {
		db := MustOpenDB(b, b.TempDir())
		const batch = 1000
		ws := make([]searchcore.DocWrite, batch)
		srcs := make([][]byte, batch)
		for i := range srcs {
			srcs[i] = citySource(i)
		}
		b.SetBytes(int64(batch * len(srcs[0])))
		b.ReportAllocs()
		seq := int64(0)
		for b.Loop() {
			for i := range ws {
				r := storetest.Doc(fmt.Sprintf("city-%d", seq), 0, seq, "")
				r.Source = srcs[i]
				ws[i] = searchcore.DocWrite{Record: r, PrevSeqNo: -1}
				seq++
			}
			if err := db.CommitDocs(ctx, "bench", ws); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(seq)/b.Elapsed().Seconds(), "docs/s")
	})
	b.Run("concurrent1", func(b *testing.B) {
		db := MustOpenDB(b, b.TempDir())
		src := citySource(0)
		var seq atomic.Int64
		b.SetParallelism(32) // 64 callers on 2 cores, as under _bulk/index load
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				s := seq.Add(1)
				r := storetest.Doc(fmt.Sprintf("city-%d", s), 0, s, "")
				r.Source = src
				if err := db.CommitDocs(ctx, "bench", storetest.New(r)); err != nil {
					b.Error(err)
					return
				}
			}
		})
		reqs, groups := store.CommitStats(db)
		b.ReportMetric(float64(seq.Load())/b.Elapsed().Seconds(), "docs/s")
		b.ReportMetric(float64(reqs)/float64(max(groups, 1)), "docs/group")
	})
	b.Run("serial1", func(b *testing.B) {
		db := MustOpenDB(b, b.TempDir())
		src := citySource(0)
		b.ReportAllocs()
		n := int64(0)
		for b.Loop() {
			r := storetest.Doc(fmt.Sprintf("city-%d", n), 0, n, "")
			r.Source = src
			if err := db.CommitDocs(ctx, "bench", storetest.New(r)); err != nil {
				b.Fatal(err)
			}
			n++
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "docs/s")
	})
}
