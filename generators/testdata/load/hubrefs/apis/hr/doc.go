// Package hr is the hub of hr.example.com.
//
// +groupName=hr.example.com
package hr
