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

// withAuth is a request editor that sends an Authorization header.
func withAuth(v string) clusterclient.RequestEditorFn {
	return func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", v)
		return nil
	}
}

// TestSecurityThroughGeneratedClient: the Go SDK gets a token with the
// password grant and authenticates with it.
func TestSecurityThroughGeneratedClient(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{TokenTimeout: time.Hour})
	ctx := context.Background()
	res, err := n.Client.SecurityGetTokenWithBodyWithResponse(ctx, &clusterclient.SecurityGetTokenParams{}, "application/json",
		strings.NewReader(`{"grant_type":"password","username":"elastic","password":"`+elasticPassword+`"}`), withAuth(elasticAuth))
	if err != nil || res.JSON200 == nil {
		t.Fatalf("get token: %v %s", err, res.Body)
	}
	if res.JSON200.ExpiresIn != 3600 || res.JSON200.Type != "Bearer" || res.JSON200.RefreshToken == nil {
		t.Errorf("token = %+v", res.JSON200)
	}
	who, err := n.Client.SecurityAuthenticateWithResponse(ctx, &clusterclient.SecurityAuthenticateParams{}, withAuth("Bearer "+res.JSON200.AccessToken))
	if err != nil || who.JSON200 == nil {
		t.Fatalf("authenticate: %v %s", err, who.Body)
	}
	if who.JSON200.Username != "elastic" || who.JSON200.AuthenticationType != clusterclient.AuthenticateResultAuthenticationTypeToken {
		t.Errorf("authenticate = %+v", who.JSON200)
	}
	var meta map[string]any
	if err := json.Unmarshal(who.JSON200.Metadata, &meta); err != nil || meta["_reserved"] != true {
		t.Errorf("metadata = %s", who.JSON200.Metadata)
	}
	denied, err := n.Client.ClusterHealthWithResponse(ctx, &clusterclient.ClusterHealthParams{})
	if err != nil || denied.StatusCode() != 401 || denied.JSONDefault == nil {
		t.Errorf("anonymous health = %v %d", err, denied.StatusCode())
	}
}

func TestServiceTokenBlockedInProductionWithoutTLS(t *testing.T) {
	n := newSecureTestNode(t, nodeOptions{Production: true})
	_, value, err := n.Security.CreateServiceToken(context.Background(), "elastic", "fleet-server", "t1")
	if err != nil {
		t.Fatal(err)
	}
	out := n.mustDo("GET", "/_cluster/health", "Bearer "+value, "", 400)
	if jsonPath(out, "error.type") != "illegal_state_exception" {
		t.Errorf("service token in production without TLS = %v", out)
	}
	n.mustDo("GET", "/_cluster/health", elasticAuth, "", 200)
}
