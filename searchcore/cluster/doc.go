// Package cluster holds the cluster-state model of a Quarry node: the
// persistent and transient cluster settings (validated against the settings
// Quarry knows, including the remote-cluster seeds used by cross-cluster
// search), the voting configuration exclusions and the description of the
// local node. It has no I/O of its own: the engine persists the state it
// marshals (State.Marshal) in the metadata store.
//
//	st := cluster.NewState()
//	res, err := st.Update(persistentJSON, transientJSON, nil)
//	if err != nil { ... }          // *eserr.Error, e.g. an unknown setting
//	b, _ := st.Marshal()            // persist b; cluster.Unmarshal(b) restores it
package cluster
