// Package v1 declares every field shape the equality generator handles and the types it
// leaves to equality.Semantic.DeepEqual; zz_generated.equality.go is its golden output
// (TestGenerateShapes) and shapes_test.go holds it to equality.Semantic.DeepEqual
// (TestShapesBehave).
//
// +groupName=shapes.apigen.dev
package v1
