// Package hub is the internal version of hub.example.com, which the server holds.
//
// +groupName=hub.example.com
package hub
