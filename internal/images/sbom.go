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
	"bytes"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"
	"time"
)

// SBOMMediaType is the media type of an SPDX 2.3 JSON document, the artifact type of
// the SBOMs attached to the images.
const SBOMMediaType = "application/spdx+json"

// SBOMInfo names what an SBOM describes: the image (its reference without a digest,
// such as quay.io/ec2-operator/ec2-operator:v0.1.0), the platform, and the creation
// time the image itself carries, so that the same inputs give the same document.
type SBOMInfo struct {
	Image    string
	Version  string
	Platform Platform
	Created  time.Time
}

// spdxDocument is the part of SPDX 2.3 the SBOMs use.
type spdxDocument struct {
	SPDXVersion       string             `json:"spdxVersion"`
	DataLicense       string             `json:"dataLicense"`
	SPDXID            string             `json:"SPDXID"`
	Name              string             `json:"name"`
	DocumentNamespace string             `json:"documentNamespace"`
	CreationInfo      spdxCreationInfo   `json:"creationInfo"`
	Packages          []spdxPackage      `json:"packages"`
	Files             []spdxFile         `json:"files,omitempty"`
	Relationships     []spdxRelationship `json:"relationships"`
}

type spdxCreationInfo struct {
	Created  string   `json:"created"`
	Creators []string `json:"creators"`
}

type spdxPackage struct {
	SPDXID           string            `json:"SPDXID"`
	Name             string            `json:"name"`
	VersionInfo      string            `json:"versionInfo,omitempty"`
	DownloadLocation string            `json:"downloadLocation"`
	FilesAnalyzed    bool              `json:"filesAnalyzed"`
	PrimaryPurpose   string            `json:"primaryPackagePurpose,omitempty"`
	Comment          string            `json:"comment,omitempty"`
	ExternalRefs     []spdxExternalRef `json:"externalRefs,omitempty"`
}

type spdxExternalRef struct {
	Category string `json:"referenceCategory"`
	Type     string `json:"referenceType"`
	Locator  string `json:"referenceLocator"`
}

type spdxFile struct {
	SPDXID    string         `json:"SPDXID"`
	FileName  string         `json:"fileName"`
	Checksums []spdxChecksum `json:"checksums"`
}

type spdxChecksum struct {
	Algorithm string `json:"algorithm"`
	Value     string `json:"checksumValue"`
}

type spdxRelationship struct {
	Element string `json:"spdxElementId"`
	Type    string `json:"relationshipType"`
	Related string `json:"relatedSpdxElement"`
}

// SBOM writes the SPDX 2.3 document of one platform's image: the image itself, every
// regular file with its SHA-256, and for each Go program among them the Go modules it
// was built from, as Go recorded them in the program (go version -m), with their
// versions, checksums and package URLs. It reads nothing but the files, so the same
// image gives the same bytes.
func SBOM(info SBOMInfo, files []File) ([]byte, error) {
	name := info.Image + " (" + info.Platform.String() + ")"
	doc := spdxDocument{
		SPDXVersion: "SPDX-2.3", DataLicense: "CC0-1.0", SPDXID: "SPDXRef-DOCUMENT", Name: name,
		CreationInfo: spdxCreationInfo{Created: info.Created.UTC().Format(time.RFC3339),
			Creators: []string{"Organization: ec2-operator project", "Tool: ec2-operator images"}},
	}
	image := spdxPackage{SPDXID: "SPDXRef-Image", Name: info.Image, VersionInfo: info.Version,
		DownloadLocation: "NOASSERTION", PrimaryPurpose: "CONTAINER"}
	doc.Packages = append(doc.Packages, image)
	doc.Relationships = append(doc.Relationships, spdxRelationship{"SPDXRef-DOCUMENT", "DESCRIBES", image.SPDXID})
	modules := map[string]spdxPackage{}
	content := sha256.New()
	for _, f := range sortedFiles(files) {
		sum := sha256.Sum256(f.Data)
		content.Write(sum[:])
		file := spdxFile{SPDXID: spdxID("File", f.Path), FileName: "." + f.Path,
			Checksums: []spdxChecksum{{Algorithm: "SHA256", Value: hex.EncodeToString(sum[:])}}}
		doc.Files = append(doc.Files, file)
		doc.Relationships = append(doc.Relationships, spdxRelationship{image.SPDXID, "CONTAINS", file.SPDXID})
		bi, err := buildinfo.Read(bytes.NewReader(f.Data))
		if err != nil {
			continue // not a Go program
		}
		program := goProgram(f.Path, bi)
		doc.Packages = append(doc.Packages, program)
		doc.Relationships = append(doc.Relationships, spdxRelationship{program.SPDXID, "GENERATED_FROM", file.SPDXID})
		for _, m := range bi.Deps {
			dep := goModule(m)
			modules[dep.SPDXID] = dep
			doc.Relationships = append(doc.Relationships, spdxRelationship{program.SPDXID, "DEPENDS_ON", dep.SPDXID})
		}
	}
	ids := make([]string, 0, len(modules))
	for id := range modules {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		doc.Packages = append(doc.Packages, modules[id])
	}
	// A document's namespace must be unique to it: the image, the platform and what
	// the files hold name it.
	doc.DocumentNamespace = fmt.Sprintf("https://ec2-operator.dev/spdx/%s/%s/%x",
		strings.NewReplacer(":", "-", "/", "-").Replace(info.Image), info.Platform.String(), content.Sum(nil))
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// goProgram is the package of a Go program: its main module, the Go version and the
// build settings that matter to what it is (GOOS, GOARCH, CGO, GOFIPS140, tags).
func goProgram(path string, bi *buildinfo.BuildInfo) spdxPackage {
	var settings []string
	for _, s := range bi.Settings {
		switch s.Key {
		case "GOOS", "GOARCH", "GOAMD64", "GOARM64", "CGO_ENABLED", "GOFIPS140", "-tags":
			settings = append(settings, s.Key+"="+s.Value)
		}
	}
	return spdxPackage{
		SPDXID: spdxID("Program", path), Name: bi.Main.Path + " (" + path + ")", VersionInfo: bi.Main.Version,
		DownloadLocation: "NOASSERTION", PrimaryPurpose: "APPLICATION",
		Comment:      "built with " + bi.GoVersion + "; " + strings.Join(settings, " "),
		ExternalRefs: []spdxExternalRef{purl(bi.Main.Path, bi.Main.Version)},
	}
}

// goModule is the package of a module a program was built from; a replaced module
// is described as what replaced it.
func goModule(m *debug.Module) spdxPackage {
	if m.Replace != nil {
		m = m.Replace
	}
	p := spdxPackage{SPDXID: spdxID("Module", m.Path+"@"+m.Version), Name: m.Path, VersionInfo: m.Version,
		DownloadLocation: "https://proxy.golang.org/" + strings.ToLower(m.Path) + "/@v/" + m.Version + ".zip",
		ExternalRefs:     []spdxExternalRef{purl(m.Path, m.Version)}}
	if m.Sum != "" {
		// Go's module checksum (h1:, a SHA-256 of the module's file tree), which the
		// checksum database holds; SPDX has no algorithm for it, so it is a comment.
		p.Comment = "go.sum " + m.Sum
	}
	return p
}

func purl(path, version string) spdxExternalRef {
	return spdxExternalRef{Category: "PACKAGE-MANAGER", Type: "purl", Locator: "pkg:golang/" + path + "@" + version}
}

// notIDChars are the characters an SPDX identifier may not hold.
var notIDChars = regexp.MustCompile(`[^A-Za-z0-9.-]+`)

// spdxID makes an SPDX identifier from a kind and a name.
func spdxID(kind, name string) string {
	return "SPDXRef-" + kind + "-" + strings.Trim(notIDChars.ReplaceAllString(name, "-"), "-")
}

// sortedFiles returns the regular files, by path.
func sortedFiles(files []File) []File {
	var out []File
	for _, f := range files {
		if !f.Dir && f.Link == "" {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
