// Package v1 holds the json tag options and method sets the loader records for
// generators/jsoncodec (TestLoadJSONShapes).
// +groupName=jsontags.example.com
package v1
