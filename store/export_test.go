package store

// CommitStats returns how many commit requests the committer has written and
// in how many groups.
func CommitStats(db *DB) (requests, groups int64) {
	return db.statRequests.Load(), db.statGroups.Load()
}

// BlockWrites holds the lock DropIndex takes, stalling the committer (and
// every badger write) until the returned function is called.
func BlockWrites(db *DB) (unblock func()) {
	db.writes.Lock()
	return db.writes.Unlock
}
