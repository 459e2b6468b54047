// Package vectors locates the conformance vectors of the signature format
// (../shared/vectors of the specification), of the RYE OS eras
// (../shared/vectors-eras) and of RyeOS 0.2+ projects
// (../shared/vectors-ryeos02). The repository carries a copy
// in testdata/ so that the tests that reproduce them (sign, verify, the
// end-to-end scripts) run wherever the repository is checked out, CI
// included; a test keeps the copy equal to the shared original when that
// is present.
package vectors

import (
	"path/filepath"
	"runtime"
)

// Dir is the folder that holds vectors.json, files/, key/ and trusted_keys/.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata")
}

// ErasDir is the folder of the RYE OS era vectors (spec 6): eras.json,
// files/ and trust/, a copy of ../shared/vectors-eras.
func ErasDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata-eras")
}

// RyeOS02Dir is the folder of the RyeOS 0.2+ vectors (spec 7): cases.json,
// files/ and trust/, a copy of ../shared/vectors-ryeos02.
func RyeOS02Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata-ryeos02")
}
