package searchcore

import (
	"context"
	"time"
)

// ShardHealth is the health of one shard (level=shards).
type ShardHealth struct {
	Status             string
	PrimaryActive      bool
	ActiveShards       int
	RelocatingShards   int
	InitializingShards int
	UnassignedShards   int
}

// IndexHealth is the health of one index (level=indices).
type IndexHealth struct {
	Status              string
	NumberOfShards      int
	NumberOfReplicas    int
	ActivePrimaryShards int
	ActiveShards        int
	RelocatingShards    int
	InitializingShards  int
	UnassignedShards    int
	Shards              map[int]ShardHealth
}

// Health is the cluster health.
type Health struct {
	ClusterName             string
	Status                  string
	TimedOut                bool
	NumberOfNodes           int
	NumberOfDataNodes       int
	ActivePrimaryShards     int
	ActiveShards            int
	RelocatingShards        int
	InitializingShards      int
	UnassignedShards        int
	DelayedUnassignedShards int
	NumberOfPendingTasks    int
	NumberOfInFlightFetch   int
	TaskMaxWaitingInQueue   int64
	ActiveShardsPercent     float64
	Indices                 map[string]IndexHealth
}

// HealthRequest are the health parameters.
type HealthRequest struct {
	Indices []*Index
	// AllIndices is true when no index was named.
	AllIndices    bool
	WaitForStatus string
	Timeout       time.Duration
	Level         string // cluster, indices, shards
	WaitForActive string // number or "all"
	WaitForNodes  string
}

var statusRank = map[string]int{"green": 0, "yellow": 1, "red": 2}

// Health computes the cluster health, waiting for a requested status until
// the timeout. A single node can never place replicas, so an index with
// replicas is yellow, exactly like a one-node Elasticsearch cluster.
func (e *Engine) Health(ctx context.Context, req HealthRequest) Health {
	deadline := time.Now().Add(req.Timeout)
	for {
		h := e.health(req)
		if req.WaitForStatus == "" || statusRank[h.Status] <= statusRank[req.WaitForStatus] {
			return h
		}
		if time.Now().After(deadline) {
			h.TimedOut = true
			return h
		}
		select {
		case <-ctx.Done():
			h.TimedOut = true
			return h
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (e *Engine) health(req HealthRequest) Health {
	h := Health{ClusterName: e.cfg.ClusterName, Status: "green", NumberOfNodes: 1, NumberOfDataNodes: 1}
	indices := req.Indices
	if req.AllIndices {
		indices = e.Indices()
	}
	if req.Level == "indices" || req.Level == "shards" {
		h.Indices = map[string]IndexHealth{}
	}
	for _, idx := range indices {
		st := idx.Settings()
		ih := IndexHealth{Status: "green", NumberOfShards: st.NumberOfShards, NumberOfReplicas: st.NumberOfReplicas}
		// A closed index keeps its shards assigned (replicated closed
		// indices, ES 7.2+): its health is that of its shard count.
		n := len(idx.shards)
		if idx.IsClosed() {
			n = st.NumberOfShards
		}
		for i := 0; i < n; i++ {
			sh := ShardHealth{Status: "green", PrimaryActive: true, ActiveShards: 1, UnassignedShards: st.NumberOfReplicas}
			if st.NumberOfReplicas > 0 {
				sh.Status = "yellow"
				ih.Status = "yellow"
			}
			ih.ActivePrimaryShards++
			ih.ActiveShards++
			ih.UnassignedShards += st.NumberOfReplicas
			if req.Level == "shards" {
				if ih.Shards == nil {
					ih.Shards = map[int]ShardHealth{}
				}
				ih.Shards[i] = sh
			}
		}
		h.ActivePrimaryShards += ih.ActivePrimaryShards
		h.ActiveShards += ih.ActiveShards
		h.UnassignedShards += ih.UnassignedShards
		if statusRank[ih.Status] > statusRank[h.Status] {
			h.Status = ih.Status
		}
		if h.Indices != nil {
			h.Indices[idx.Name()] = ih
		}
	}
	total := h.ActiveShards + h.UnassignedShards
	h.ActiveShardsPercent = 100
	if total > 0 {
		h.ActiveShardsPercent = float64(h.ActiveShards) * 100 / float64(total)
	}
	return h
}
