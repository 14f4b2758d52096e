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

package toolbox

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// tarOptions are the GNU tar options oc rsync's tar strategy passes.
type tarOptions struct {
	create, extract, noRecursion bool
	dir, file                    string
	excludes, paths              []string
}

// tarCmd is `tar -c|-x [-C DIR] [-f FILE] [-o] [-v] [--no-recursion]
// [--exclude=PATTERN] [PATH...]` with the archive on standard output or input by
// default, and `tar --version`, which oc runs to find that tar exists.
func tarCmd(_ context.Context, s Streams, args []string) int {
	if len(args) == 1 && args[0] == "--version" {
		fmt.Fprintln(s.Out, "tar (ec2-operator must-gather toolbox) 1.0")
		return 0
	}
	opts, err := parseTar(args)
	if err != nil {
		return failf(s, 2, "tar", "%v", err)
	}
	dir := s.Dir
	if opts.dir != "" {
		dir = resolve(s, opts.dir)
	}
	switch {
	case opts.create == opts.extract:
		return failf(s, 2, "tar", "give exactly one of -c and -x")
	case opts.create:
		out := s.Out
		if opts.file != "" && opts.file != "-" {
			f, err := os.Create(resolve(s, opts.file))
			if err != nil {
				return failf(s, 2, "tar", "%v", err)
			}
			defer f.Close()
			out = f
		}
		err = createTar(out, dir, opts)
	default:
		in := s.In
		if opts.file != "" && opts.file != "-" {
			f, err := os.Open(resolve(s, opts.file))
			if err != nil {
				return failf(s, 2, "tar", "%v", err)
			}
			defer f.Close()
			in = f
		}
		err = extractTar(in, dir)
	}
	if err != nil {
		return failf(s, 2, "tar", "%v", err)
	}
	return 0
}

func parseTar(args []string) (tarOptions, error) {
	var o tarOptions
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--no-recursion":
			o.noRecursion = true
		case strings.HasPrefix(arg, "--exclude="):
			o.excludes = append(o.excludes, strings.TrimPrefix(arg, "--exclude="))
		case strings.HasPrefix(arg, "--"):
			return o, fmt.Errorf("this image's tar does not support %s", arg)
		case strings.HasPrefix(arg, "-") && len(arg) > 1:
			for _, letter := range arg[1:] {
				var value *string
				switch letter {
				case 'c':
					o.create = true
				case 'x':
					o.extract = true
				case 'o', 'v', 'p':
					// Ownership is never restored; names are not listed.
				case 'C':
					value = &o.dir
				case 'f':
					value = &o.file
				default:
					return o, fmt.Errorf("this image's tar does not support -%c", letter)
				}
				if value != nil {
					if i+1 >= len(args) {
						return o, fmt.Errorf("-%c needs an argument", letter)
					}
					i++
					*value = args[i]
				}
			}
		default:
			o.paths = append(o.paths, arg)
		}
	}
	return o, nil
}

// createTar archives the paths (relative to dir) with their contents.
func createTar(out io.Writer, dir string, o tarOptions) error {
	tw := tar.NewWriter(out)
	if len(o.paths) == 0 {
		return fmt.Errorf("refusing to create an empty archive")
	}
	for _, p := range o.paths {
		err := filepath.WalkDir(filepath.Join(dir, p), func(full string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(dir, full)
			if err != nil {
				return err
			}
			name := filepath.ToSlash(rel)
			if excluded(name, o.excludes) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if err := addToTar(tw, full, name, d); err != nil {
				return err
			}
			if d.IsDir() && o.noRecursion && full != filepath.Join(dir, p) {
				return filepath.SkipDir
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return tw.Close()
}

func excluded(name string, patterns []string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, path.Base(name)); ok {
			return true
		}
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

func addToTar(tw *tar.Writer, full, name string, d fs.DirEntry) error {
	info, err := d.Info()
	if err != nil {
		return err
	}
	link := ""
	if info.Mode()&fs.ModeSymlink != 0 {
		if link, err = os.Readlink(full); err != nil {
			return err
		}
	}
	hdr, err := tar.FileInfoHeader(info, link)
	if err != nil {
		return err
	}
	hdr.Name = name
	if d.IsDir() {
		hdr.Name = strings.TrimSuffix(name, "/") + "/"
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(full)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(tw, f)
	return err
}

// extractTar writes an archive's directories and regular files under dir, refusing
// names that would leave it.
func extractTar(in io.Reader, dir string) error {
	tr := tar.NewReader(in)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(hdr.Name))
		if target != filepath.Clean(dir) && !strings.HasPrefix(target, filepath.Clean(dir)+string(filepath.Separator)) {
			return fmt.Errorf("%s is outside %s", hdr.Name, dir)
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(target, 0o755)
		case tar.TypeReg:
			err = writeExtracted(target, tr, hdr.FileInfo().Mode().Perm())
		default:
			err = fmt.Errorf("%s: only directories and regular files are extracted", hdr.Name)
		}
		if err != nil {
			return err
		}
	}
}

func writeExtracted(target string, r io.Reader, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(target, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
