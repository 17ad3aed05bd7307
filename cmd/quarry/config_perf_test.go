package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestMemoryLimitSetting: ext.memory.soft_limit defaults to 128mb and is
// applied unless GOMEMLIMIT is set or the value is 0; bad values fail.
func TestMemoryLimitSetting(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	cases := []struct {
		name      string
		overrides []string
		fromEnv   bool
		want      int64 // applied limit, 0 none
		wantErr   string
	}{
		{"default", nil, false, 128 << 20, ""},
		{"explicit", []string{"ext.memory.soft_limit=64mb"}, false, 64 << 20, ""},
		{"disabled", []string{"ext.memory.soft_limit=0"}, false, 0, ""},
		{"GOMEMLIMIT wins", []string{"ext.memory.soft_limit=64mb"}, true, 0, ""},
		{"bad", []string{"ext.memory.soft_limit=lots"}, false, 0, "invalid value [lots] for setting [ext.memory.soft_limit] (from -E): "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := loadSettings("", tc.overrides, nil)
			if tc.wantErr != "" {
				if err == nil || len(err.Error()) < len(tc.wantErr) || err.Error()[:len(tc.wantErr)] != tc.wantErr {
					t.Fatalf("error %v, want prefix %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			debug.SetMemoryLimit(1 << 62)
			got := applyMemoryLimit(s, tc.fromEnv)
			if got != tc.want {
				t.Fatalf("applied %d, want %d", got, tc.want)
			}
			runtimeLimit := debug.SetMemoryLimit(-1)
			if tc.want > 0 && runtimeLimit != tc.want {
				t.Errorf("runtime limit %d, want %d", runtimeLimit, tc.want)
			}
			if tc.want == 0 && runtimeLimit != 1<<62 {
				t.Errorf("runtime limit changed to %d", runtimeLimit)
			}
		})
	}
}

func TestPprofSetting(t *testing.T) {
	s, err := loadSettings("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Bool("ext.pprof.enabled") {
		t.Error("ext.pprof.enabled defaults to true")
	}
	if s, err = loadSettings("", []string{"ext.pprof.enabled=true"}, nil); err != nil || !s.Bool("ext.pprof.enabled") {
		t.Errorf("ext.pprof.enabled=true: %v", err)
	}
	if _, err := loadSettings("", []string{"ext.pprof.enabled=yes"}, nil); err == nil || err.Error() != "invalid value [yes] for setting [ext.pprof.enabled] (from -E): must be true or false" {
		t.Errorf("ext.pprof.enabled=yes: %v", err)
	}
}

// TestPointsCacheSetting: ext.search.points_cache.size defaults to 64mb,
// 0 disables the points (a negative engine size), bad values fail.
func TestPointsCacheSetting(t *testing.T) {
	for _, tc := range []struct {
		overrides []string
		want      int64
		wantErr   string
	}{
		{nil, 64 << 20, ""},
		{[]string{"ext.search.points_cache.size=16mb"}, 16 << 20, ""},
		{[]string{"ext.search.points_cache.size=0"}, -1, ""},
		{[]string{"ext.search.points_cache.size=some"}, 0, "invalid value [some] for setting [ext.search.points_cache.size] (from -E): "},
	} {
		s, err := loadSettings("", tc.overrides, nil)
		if tc.wantErr != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Errorf("%v: error %v, want prefix %q", tc.overrides, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := pointsCacheBytes(s); got != tc.want {
			t.Errorf("%v: %d bytes, want %d", tc.overrides, got, tc.want)
		}
	}
}
