// Package pc is the hub of pc.example.com.
//
// +groupName=pc.example.com
package pc
