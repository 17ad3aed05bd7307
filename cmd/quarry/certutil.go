package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// certutil runs `quarry certutil ca|cert`: it creates a certificate
// authority and node certificates signed by it (PEM files), like
// elasticsearch-certutil.
func certutil(args []string, stdout, stderr io.Writer) error {
	usage := "usage: quarry certutil ca --out DIR [--name CN] [--days N] | cert --ca-cert FILE --ca-key FILE --name NAME [--dns a,b] [--ip 1.2.3.4,...] --out DIR [--days N]"
	if len(args) == 0 {
		return errors.New(usage)
	}
	mode := args[0]
	fs := flag.NewFlagSet("certutil "+mode, flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", ".", "output folder")
	name := fs.String("name", "", "common name (ca: default \"Quarry Certificate Authority\"; cert: required, also the file name)")
	days := fs.Int("days", 1095, "validity in days")
	caCert := fs.String("ca-cert", "", "CA certificate (PEM)")
	caKey := fs.String("ca-key", "", "CA private key (PEM)")
	dns := fs.String("dns", "", "comma-separated DNS names")
	ips := fs.String("ip", "", "comma-separated IP addresses")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *days <= 0 {
		return fmt.Errorf("--days must be positive")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	switch mode {
	case "ca":
		cn := *name
		if cn == "" {
			cn = "Quarry Certificate Authority"
		}
		key, der, err := newCertificate(cn, *days, true, nil, nil, nil, nil)
		if err != nil {
			return err
		}
		return writePair(stdout, *out, "ca", der, key)
	case "cert":
		if *name == "" || *caCert == "" || *caKey == "" {
			return errors.New(usage)
		}
		parent, parentKey, err := loadCA(*caCert, *caKey)
		if err != nil {
			return err
		}
		var ipList []net.IP
		for _, s := range splitList(*ips) {
			ip := net.ParseIP(s)
			if ip == nil {
				return fmt.Errorf("invalid IP address [%s]", s)
			}
			ipList = append(ipList, ip)
		}
		key, der, err := newCertificate(*name, *days, false, splitList(*dns), ipList, parent, parentKey)
		if err != nil {
			return err
		}
		return writePair(stdout, *out, *name, der, key)
	}
	return errors.New(usage)
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// newCertificate creates an ECDSA P-256 key and a certificate: self-signed
// CA when isCA, else a server/client certificate signed by parent.
func newCertificate(cn string, days int, isCA bool, dns []string, ips []net.IP, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*ecdsa.PrivateKey, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(time.Duration(days) * 24 * time.Hour),
		DNSNames:     dns,
		IPAddresses:  ips,
	}
	if isCA {
		tmpl.IsCA = true
		tmpl.BasicConstraintsValid = true
		tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature
		parent, parentKey = tmpl, key
	} else {
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		return nil, nil, err
	}
	return key, der, nil
}

func loadCA(certFile, keyFile string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	cb, err := os.ReadFile(certFile)
	if err != nil {
		return nil, nil, err
	}
	kb, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, nil, err
	}
	cp, _ := pem.Decode(cb)
	kp, _ := pem.Decode(kb)
	if cp == nil || kp == nil {
		return nil, nil, fmt.Errorf("CA certificate and key must be PEM files")
	}
	cert, err := x509.ParseCertificate(cp.Bytes)
	if err != nil {
		return nil, nil, err
	}
	if !cert.IsCA {
		return nil, nil, fmt.Errorf("%s is not a CA certificate", certFile)
	}
	key, err := x509.ParseECPrivateKey(kp.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("CA key: %w", err)
	}
	return cert, key, nil
}

func writePair(stdout io.Writer, dir, name string, der []byte, key *ecdsa.PrivateKey) error {
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	certPath, keyPath := filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s and %s\n", certPath, keyPath)
	return nil
}
