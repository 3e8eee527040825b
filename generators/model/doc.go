// Package model is apigen's one picture of an API: groups, versions, kinds, types, fields
// and the markers on them, as plain structs.
//
// generators/load builds it from Go packages; every generator reads it and nothing else, so
// a generator test can build a model from literals. The model holds no go/types or gengo
// values and no behaviour beyond small lookups.
package model
