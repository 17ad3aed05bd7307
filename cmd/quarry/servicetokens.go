package main

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/quarry-search/quarry/searchcore/security"
)

// serviceTokens runs `quarry service-tokens create|list|delete`: it manages
// the file-based service token store (<path.conf>/service_tokens) that the
// server reads, like elasticsearch-service-tokens.
func serviceTokens(args []string, stdout, stderr io.Writer) error {
	usage := "usage: quarry service-tokens [--path.conf DIR] create <namespace/service> <token-name> | list [<namespace/service>] | delete <namespace/service> <token-name>"
	fs := flag.NewFlagSet("service-tokens", flag.ContinueOnError)
	fs.SetOutput(stderr)
	conf := fs.String("path.conf", "./config", "configuration folder holding service_tokens")
	if err := fs.Parse(args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return errors.New(usage)
	}
	file := filepath.Join(*conf, "service_tokens")
	entries := map[string]string{}
	if b, err := os.ReadFile(file); err == nil {
		entries = security.ParseColonFile(b)
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	switch rest[0] {
	case "create":
		if len(rest) != 3 {
			return errors.New(usage)
		}
		qualified, entry, value, err := security.NewFileServiceToken(rest[1], rest[2], randomString)
		if err != nil {
			return err
		}
		if _, ok := entries[qualified]; ok {
			return fmt.Errorf("service token [%s] already exists", qualified)
		}
		entries[qualified] = entry
		if err := writeTokens(file, entries); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "SERVICE_TOKEN %s = %s\n", qualified, value)
	case "list":
		if len(rest) > 2 {
			return errors.New(usage)
		}
		for _, k := range sortedNames(entries) {
			if len(rest) == 2 && !strings.HasPrefix(k, rest[1]+"/") {
				continue
			}
			fmt.Fprintln(stdout, k)
		}
	case "delete":
		if len(rest) != 3 {
			return errors.New(usage)
		}
		qualified := rest[1] + "/" + rest[2]
		if _, ok := entries[qualified]; !ok {
			return fmt.Errorf("service token [%s] does not exist", qualified)
		}
		delete(entries, qualified)
		if err := writeTokens(file, entries); err != nil {
			return err
		}
	default:
		return errors.New(usage)
	}
	return nil
}

func randomString(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// writeTokens replaces the token file atomically, readable by the owner only.
func writeTokens(file string, entries map[string]string) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, security.FormatColonFile(entries), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
