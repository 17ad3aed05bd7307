package security

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// fileStores reads the file realm (users, users_roles) and the file-based
// service token store (service_tokens), reloading a file when it changes.
type fileStores struct {
	serviceTokens, users, usersRoles string

	mu    sync.Mutex
	cache map[string]fileSnapshot
}

type fileSnapshot struct {
	mod   time.Time
	size  int64
	lines map[string]string
}

// read returns the "key:value" lines of a file (missing file: none).
func (f *fileStores) read(path string) map[string]string {
	if path == "" {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cache == nil {
		f.cache = map[string]fileSnapshot{}
	}
	if s, ok := f.cache[path]; ok && s.mod.Equal(st.ModTime()) && s.size == st.Size() {
		return s.lines
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	lines := ParseColonFile(b)
	f.cache[path] = fileSnapshot{mod: st.ModTime(), size: st.Size(), lines: lines}
	return lines
}

// ParseColonFile parses "key:value" lines, skipping blanks and # comments.
func ParseColonFile(b []byte) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return out
}

// FormatColonFile renders "key:value" lines sorted by key.
func FormatColonFile(m map[string]string) []byte {
	var buf bytes.Buffer
	for _, k := range sortedKeys(m) {
		fmt.Fprintf(&buf, "%s:%s\n", k, m[k])
	}
	return buf.Bytes()
}

// user returns a file realm user (roles from users_roles).
func (f *fileStores) user(name string) (*userRecord, bool) {
	hash, ok := f.read(f.users)[name]
	if !ok {
		return nil, false
	}
	rec := &userRecord{User: User{Username: name, Enabled: true}, PasswordHash: hash}
	for role, members := range f.read(f.usersRoles) {
		for _, m := range strings.Split(members, ",") {
			if strings.TrimSpace(m) == name {
				rec.Roles = append(rec.Roles, role)
			}
		}
	}
	sort.Strings(rec.Roles)
	rec.normalize()
	return rec, true
}

// fileServiceToken returns the stored hash of a file-based service token
// ("elastic/fleet-server/token1").
func (f *fileStores) fileServiceToken(qualified string) (string, bool) {
	v, ok := f.read(f.serviceTokens)[qualified]
	return v, ok
}

// fileServiceTokenNames lists the file-based tokens of an account.
func (f *fileStores) fileServiceTokenNames(account string) []string {
	var out []string
	for k := range f.read(f.serviceTokens) {
		if name, ok := strings.CutPrefix(k, account+"/"); ok && !strings.Contains(name, "/") {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
