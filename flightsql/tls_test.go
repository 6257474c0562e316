package flightsql_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	pfsql "github.com/paimon-flightsql/paimon-flightsql/flightsql"
)

// writeCert creates a certificate signed by parent (self-signed when nil)
// and writes cert and key PEM files named base.pem / base.key.
func writeCert(t *testing.T, dir, base, cn string, isCA bool, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey, tls.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IsCA:         isCA, BasicConstraintsValid: true,
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	kb, _ := x509.MarshalECPrivateKey(key)
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
	if err := os.WriteFile(filepath.Join(dir, base+".pem"), certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, base+".key"), keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return cert, key, pair
}

func TestTLSAndMutualTLS(t *testing.T) {
	dir := t.TempDir()
	ca, caKey, _ := writeCert(t, dir, "ca", "test-ca", true, nil, nil)
	writeCert(t, dir, "server", "127.0.0.1", false, ca, caKey)
	_, _, clientPair := writeCert(t, dir, "client", "carol", false, ca, caKey)
	e := startServer(t, func(c *pfsql.Config) {
		c.TLSCertFile = filepath.Join(dir, "server.pem")
		c.TLSKeyFile = filepath.Join(dir, "server.key")
		c.ClientCAFile = filepath.Join(dir, "ca.pem")
	})
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	dial := func(certs []tls.Certificate) error {
		cl, err := flightsql.NewClient(e.addr, nil, nil, grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool, Certificates: certs})))
		if err != nil {
			return err
		}
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		info, err := cl.Execute(ctx, "SELECT * FROM session_options")
		if err != nil {
			return err
		}
		rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
		if err != nil {
			return err
		}
		defer rdr.Release()
		for rdr.Next() {
		}
		return rdr.Err()
	}
	if err := dial([]tls.Certificate{clientPair}); err != nil {
		t.Fatalf("mTLS client: %v", err)
	}
	if err := dial(nil); err == nil {
		t.Fatal("client without a certificate was accepted")
	}
	// The mTLS identity names the caller in the RPC log.
	if !strings.Contains(e.logBuf.String(), `"user":"carol"`) {
		t.Fatalf("log lacks the certificate identity: %s", e.logBuf.String())
	}
}
