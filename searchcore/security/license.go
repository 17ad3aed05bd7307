package security

import (
	"crypto/sha256"
	"fmt"
	"time"
)

// License is the node's licence. Quarry ships every feature, so the
// licence is a self-issued enterprise licence that does not expire.
type License struct {
	UID       string
	Type      string
	Status    string
	IssuedTo  string
	Issuer    string
	IssueDate time.Time
	// MaxResourceUnits bounds an enterprise licence (max_nodes for others).
	MaxResourceUnits int
}

// NodeLicense returns the licence of a cluster: its uid derives from the
// cluster uuid so it is stable across restarts.
func NodeLicense(clusterUUID, clusterName string) License {
	sum := sha256.Sum256([]byte("quarry-license/" + clusterUUID))
	b := sum[:16]
	uid := fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
	return License{
		UID: uid, Type: "enterprise", Status: "active", IssuedTo: clusterName, Issuer: "quarry",
		IssueDate: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), MaxResourceUnits: 1000,
	}
}

// Reported is the licence as GET /_license shows it: from 7.8.1 an
// enterprise licence reads platinum (with max_nodes) unless the client
// accepts enterprise.
func (l License) Reported(acceptEnterprise bool) (typ string, maxNodes, maxResourceUnits *int) {
	units := l.MaxResourceUnits
	if l.Type == "enterprise" && !acceptEnterprise {
		return "platinum", &units, nil
	}
	if l.Type == "enterprise" {
		return l.Type, nil, &units
	}
	return l.Type, &units, nil
}
