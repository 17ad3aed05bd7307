// Package security is the domain of authentication and authorization: the
// realm chain (native users with bcrypt-hashed passwords, reserved users),
// the token service (access and refresh tokens), API keys, service accounts
// (with their file-based token store), roles with cluster and index
// privileges, and the authorization decision for an action on indices.
//
// It never imports net/http: the HTTP layer passes the Authorization header
// value and the client address, and renders the errors this package returns
// (searchcore/eserr values with security_exception types).
//
//	svc, err := security.Open(ctx, security.Config{Store: db, BootstrapPassword: os.Getenv("ELASTIC_PASSWORD")})
//	authn, err := svc.Authenticate(ctx, security.Credentials{Header: "Basic ZWxhc3RpYzpjaGFuZ2VtZQ=="})
//	err = svc.Authorize(authn, security.Request{Action: "indices:data/read/search", Indices: []string{"logs"}})
package security
