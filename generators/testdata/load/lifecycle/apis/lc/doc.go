// Package lc is the hub of lc.example.com.
//
// +groupName=lc.example.com
package lc
