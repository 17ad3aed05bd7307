package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quarry-search/quarry/clients/clusterclient"
)

func TestIndexLifecycleThroughClient(t *testing.T) {
	n := newTestNode(t)
	ctx := context.Background()
	for _, name := range []string{"life-a", "life-b", "other"} {
		res, err := n.Client.IndicesCreateWithBodyWithResponse(ctx, name, &clusterclient.IndicesCreateParams{}, "application/json",
			strings.NewReader(`{"settings":{"number_of_shards":2,"number_of_replicas":0},"mappings":{"properties":{"k":{"type":"keyword"}}}}`))
		if err != nil || res.StatusCode() != 200 || res.JSON200 == nil || !res.JSON200.Acknowledged {
			t.Fatalf("create %s: %v %s", name, err, res.Body)
		}
	}
	get, err := n.Client.IndicesGetWithResponse(ctx, "life-*", &clusterclient.IndicesGetParams{})
	if err != nil || get.StatusCode() != 200 {
		t.Fatalf("get: %v %d", err, get.StatusCode())
	}
	var body map[string]any
	_ = json.Unmarshal(get.Body, &body)
	if len(body) != 2 || str(jsonPath(body, "life-a.settings.index.number_of_shards")) != `"2"` || str(jsonPath(body, "life-b.mappings.properties.k.type")) != `"keyword"` {
		t.Errorf("GET life-* = %s", get.Body)
	}
	h, err := n.Client.ClusterHealthWithResponse(ctx, &clusterclient.ClusterHealthParams{Level: ptr(clusterclient.HealthLevelIndices)})
	if err != nil || h.StatusCode() != 200 {
		t.Fatalf("health: %v", err)
	}
	_ = json.Unmarshal(h.Body, &body)
	for path, want := range map[string]string{
		"status": `"green"`, "active_primary_shards": "6", "active_shards": "6", "unassigned_shards": "0",
		"indices.life-a.status": `"green"`, "indices.life-a.number_of_shards": "2",
	} {
		if got := str(jsonPath(body, path)); got != want {
			t.Errorf("health %s = %s, want %s", path, got, want)
		}
	}
	// An index with replicas is yellow on one node, like Elasticsearch.
	n.do("PUT", "/replicated", "application/json", `{}`)
	if _, body := n.do("GET", "/_cluster/health/replicated", "", ""); body["status"] != "yellow" || str(body["unassigned_shards"]) != "1" {
		t.Errorf("health of replicated = %v", body)
	}
	if code, body := n.do("GET", "/_cluster/health/replicated?wait_for_status=green&timeout=100ms", "", ""); code != 408 || body["timed_out"] != true {
		t.Errorf("wait_for_status timeout = %d %v", code, body)
	}
	del, err := n.Client.IndicesDeleteWithResponse(ctx, "life-*", &clusterclient.IndicesDeleteParams{})
	if err != nil || del.StatusCode() != 200 {
		t.Fatalf("delete: %v %s", err, del.Body)
	}
	if code, _ := n.do("HEAD", "/life-a", "", ""); code != 404 {
		t.Errorf("life-a still exists")
	}
	if code, _ := n.do("HEAD", "/other", "", ""); code != 200 {
		t.Errorf("other was deleted by life-*")
	}
	code, body := n.do("DELETE", "/missing", "", "")
	if code != 404 || jsonPath(body, "error.type") != "index_not_found_exception" {
		t.Errorf("DELETE missing = %d %v", code, body)
	}
	// A deleted index name can be reused, with no old documents.
	n.do("PUT", "/other/_doc/1?refresh=true", "application/json", `{"k":"x"}`)
	n.do("DELETE", "/other", "", "")
	n.do("PUT", "/other", "application/json", `{}`)
	if _, body := n.do("GET", "/other/_count", "", ""); str(body["count"]) != "0" {
		t.Errorf("recreated index count = %v", body["count"])
	}
}

// TestWritesRacingIndexDeletionReturn checks that writes in flight while
// their index is deleted answer (success or error) instead of hanging.
func TestWritesRacingIndexDeletionReturn(t *testing.T) {
	n := newTestNode(t)
	n.do("PUT", "/race", "application/json", `{"settings":{"number_of_shards":2}}`)
	done := make(chan struct{})
	stop := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			var b strings.Builder
			for j := 0; j < 50; j++ {
				b.WriteString(`{"index":{"_index":"race"}}` + "\n" + `{"i":1}` + "\n")
			}
			req, _ := http.NewRequest("POST", n.URL+"/_bulk?refresh=true", strings.NewReader(b.String()))
			req.Header.Set("Content-Type", "application/x-ndjson")
			if res, err := http.DefaultClient.Do(req); err == nil {
				res.Body.Close()
			}
		}
	}()
	time.Sleep(150 * time.Millisecond)
	if code, _ := n.do("DELETE", "/race", "", ""); code != 200 {
		t.Errorf("delete = %d", code)
	}
	time.Sleep(100 * time.Millisecond)
	close(stop)
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("a write racing the index deletion did not return")
	}
}
