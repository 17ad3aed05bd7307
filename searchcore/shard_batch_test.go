package searchcore

import (
	"testing"

	"github.com/blugelabs/bluge"
)

// TestPendingBatchResetDropsDocuments: once a batch is applied its
// buffer keeps no document alive (a whole batch of analysed documents
// would otherwise stay reachable until overwritten), and an id seen twice
// keeps only its last operation.
func TestPendingBatchResetDropsDocuments(t *testing.T) {
	var pb pendingBatch
	doc := func(id string) *parsedDoc { return &parsedDoc{root: bluge.NewDocument(id)} }
	pb.add(shardOp{id: "a", seq: 0, doc: doc("a")})
	pb.add(shardOp{id: "b", seq: 1, doc: doc("b")})
	last := doc("a")
	pb.add(shardOp{id: "a", seq: 2, doc: last})
	pb.add(shardOp{id: "c", seq: 3, skip: true})
	if len(pb.ops) != 2 || pb.ops[0].doc != last || pb.ops[0].seq != 2 || pb.ops[1].id != "b" {
		t.Fatalf("ops = %+v, want [a@2 b@1]", pb.ops)
	}
	if pb.maxSeq != 3 {
		t.Fatalf("maxSeq = %d, want 3", pb.maxSeq)
	}
	pb.reset()
	if len(pb.ops) != 0 || len(pb.byID) != 0 || pb.maxSeq != -1 {
		t.Fatalf("after reset: %d ops, %d ids, maxSeq %d", len(pb.ops), len(pb.byID), pb.maxSeq)
	}
	for i, op := range pb.ops[:cap(pb.ops)] {
		if op.doc != nil || op.id != "" {
			t.Fatalf("buffer slot %d still holds %+v", i, op)
		}
	}
}
