// Package v1 declares every field shape the JSON codec generator handles, and structs it
// must leave to encoding/json; zz_generated.json.go is its golden output (TestGenerateShapes)
// and shapes_test.go holds it to the reference libraries (TestShapesBehave).
//
// +groupName=shapes.apigen.dev
package v1
