// Package v1 is the most preferred of two versions of a group without an internal package,
// as Gateway API's apis/v1.
// +groupName=nohub.example.com
package v1
