/*
Copyright 2026 The ec2-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package images

import (
	"archive/tar"
	"errors"
	"io"
	"testing"
	"time"
)

var epoch = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

func TestLayerDependsOnlyOnItsFilesNotTheirOrder(t *testing.T) {
	a := []File{
		{Path: "/etc/passwd", Mode: 0o644, Data: []byte("root:x:0:0::/:/sbin/nologin\n")},
		{Path: "/manager", Mode: 0o755, Data: []byte("binary")},
		{Path: "/tmp", Dir: true, Mode: 0o1777},
	}
	b := []File{a[2], a[0], a[1]}
	la, err := NewLayer(a, epoch)
	if err != nil {
		t.Fatal(err)
	}
	lb, err := NewLayer(b, epoch)
	if err != nil {
		t.Fatal(err)
	}
	da, _ := la.Digest()
	db, _ := lb.Digest()
	if da != db {
		t.Errorf("the same files in another order give another digest: %s vs %s", da, db)
	}
	later, err := NewLayer(a, epoch.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if dl, _ := later.Digest(); dl == da {
		t.Error("the modification time is not part of the layer")
	}
}

func TestLayerEntriesAreSortedWithParentsAndFixedMetadata(t *testing.T) {
	l, err := NewLayer([]File{
		{Path: "/usr/local/bin/tool", Mode: 0o755, Data: []byte("x")},
		{Path: "/home/nonroot", Dir: true, Mode: 0o700, UID: 65532, GID: 65532},
		{Path: "/etc/group", Mode: 0o644, Data: []byte("root:x:0:\n")},
	}, epoch)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	var names []string
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, hdr.Name)
		if !hdr.ModTime.Equal(epoch) || hdr.Uname != "" || hdr.Gname != "" || !hdr.AccessTime.IsZero() {
			t.Errorf("%s: mtime %s, uname %q, gname %q, atime %s", hdr.Name, hdr.ModTime, hdr.Uname, hdr.Gname, hdr.AccessTime)
		}
		if hdr.Name == "home/nonroot/" && (hdr.Uid != 65532 || hdr.Gid != 65532 || hdr.Mode != 0o700) {
			t.Errorf("home directory: uid %d gid %d mode %o", hdr.Uid, hdr.Gid, hdr.Mode)
		}
		if hdr.Name == "usr/local/" && (hdr.Uid != 0 || hdr.Mode != 0o755 || hdr.Typeflag != tar.TypeDir) {
			t.Errorf("added parent directory: uid %d mode %o type %c", hdr.Uid, hdr.Mode, hdr.Typeflag)
		}
	}
	want := []string{"etc/", "etc/group", "home/", "home/nonroot/", "usr/", "usr/local/", "usr/local/bin/", "usr/local/bin/tool"}
	if len(names) != len(want) {
		t.Fatalf("entries %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("entries %v, want %v", names, want)
		}
	}
}

func TestLayerRejectsRelativeDuplicateAndNestedFilePaths(t *testing.T) {
	testCases := []struct {
		name  string
		files []File
	}{
		{"relative", []File{{Path: "etc/passwd"}}},
		{"unclean", []File{{Path: "/etc/../passwd"}}},
		{"root", []File{{Path: "/", Dir: true}}},
		{"duplicate", []File{{Path: "/a"}, {Path: "/a"}}},
		{"inside a file", []File{{Path: "/a", Data: []byte("x")}, {Path: "/a/b"}}},
		{"inside a link", []File{{Path: "/a", Link: "/b"}, {Path: "/a/b"}}},
		{"a link with content", []File{{Path: "/a", Link: "/b", Data: []byte("x")}}},
		{"a link that is a directory", []File{{Path: "/a", Link: "/b", Dir: true}}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewLayer(tc.files, epoch); err == nil {
				t.Error("accepted")
			}
		})
	}
}

func TestLayerKeepsNamesLongerThanUSTARHolds(t *testing.T) {
	long := "/manifests/ec2-operator-prometheus-metrics-reader-rolebinding_rbac.authorization.k8s.io_v1_clusterrolebinding.yaml"
	files := []File{{Path: long, Mode: 0o644, Data: []byte("kind: ClusterRoleBinding\n")}}
	l, err := NewLayer(files, epoch)
	if err != nil {
		t.Fatalf("a %d-byte file name: %v", len(long), err)
	}
	again, _ := NewLayer(files, epoch)
	if a, b := mustDigest(t, l), mustDigest(t, again); a != b {
		t.Errorf("the same long-named file gives two digests: %s, %s", a, b)
	}
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	var found bool
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if "/"+hdr.Name == long {
			found = true
			if !hdr.AccessTime.IsZero() || !hdr.ChangeTime.IsZero() || !hdr.ModTime.Equal(epoch) {
				t.Errorf("the long-named entry carries other times: %+v", hdr)
			}
		}
	}
	if !found {
		t.Errorf("the layer has no entry named %s", long)
	}
}

func mustDigest(t *testing.T, l *Layer) string {
	t.Helper()
	d, err := l.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d.String()
}
