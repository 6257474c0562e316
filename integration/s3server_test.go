package integration

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// The real S3 server of the object-storage tests: versitygw (posix
// backend, metadata in a sidecar directory so no xattr support is needed),
// built from the module graph (go.mod's tool directive) with `go build`
// once per test binary, one server process per test, on 127.0.0.1.
// Set $VERSITYGW to use a prebuilt binary instead.

const (
	s3AccessKey = "paimonflightsql"
	s3SecretKey = "paimon-flightsql-secret"
)

var (
	vgwOnce sync.Once
	vgwBin  string
	vgwErr  error
)

func versitygwBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping the tests that build and run the versitygw S3 server")
	}
	vgwOnce.Do(func() {
		if b := os.Getenv("VERSITYGW"); b != "" {
			vgwBin = b
			return
		}
		dir := integrationTmp
		if dir == "" {
			dir = os.TempDir()
		}
		vgwBin = filepath.Join(dir, "versitygw")
		cmd := exec.Command("go", "build", "-o", vgwBin, "github.com/versity/versitygw/cmd/versitygw")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			vgwErr = fmt.Errorf("building versitygw: %v\n%s", err, out)
		}
	})
	if vgwErr != nil {
		t.Fatal(vgwErr)
	}
	return vgwBin
}

// s3Server is one running versitygw.
type s3Server struct {
	endpoint string
}

// startS3 starts versitygw on a temp directory and creates bucket; the
// process is killed when the test ends.
func startS3(t *testing.T, bucket string) *s3Server {
	t.Helper()
	bin := versitygwBinary(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	root, side := t.TempDir(), t.TempDir()
	// --keep-alive, as AWS S3, MinIO and Ceph serve (versitygw closes each
	// connection after one response otherwise): requests reuse pooled
	// connections, including after reads cancelled mid-body.
	cmd := exec.Command(bin, "--access", s3AccessKey, "--secret", s3SecretKey, "--port", addr, "--quiet", "--keep-alive",
		"posix", "--sidecar", side, root)
	logf, err := os.Create(filepath.Join(t.TempDir(), "versitygw.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
		logf.Close()
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-done:
			b, _ := os.ReadFile(logf.Name())
			t.Fatalf("versitygw exited: %s", b)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw did not listen on %s", addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	srv := &s3Server{endpoint: "http://" + addr}
	client := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: &srv.endpoint, UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(s3AccessKey, s3SecretKey, ""),
	})
	if _, err := client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatalf("create bucket %s: %v", bucket, err)
	}
	return srv
}

// options are the catalog options a user passes with --catalog-option.
func (s *s3Server) options() map[string]string {
	return map[string]string{
		"s3.endpoint": s.endpoint, "s3.access-key": s3AccessKey, "s3.secret-key": s3SecretKey,
		"s3.path.style.access": "true", "s3.region": "us-east-1",
	}
}

// open returns a FileIO rooted at url, as the command line opens it.
func (s *s3Server) open(t testing.TB, url string) *fileio.S3 {
	t.Helper()
	o, err := fileio.S3OptionsFromCatalog(s.options())
	if err != nil {
		t.Fatal(err)
	}
	fio, err := fileio.NewS3(context.Background(), url, o)
	if err != nil {
		t.Fatal(err)
	}
	return fio
}
