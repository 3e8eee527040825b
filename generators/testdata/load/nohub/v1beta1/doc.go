// Package v1beta1 declares its kinds as v1's, as Gateway API's apis/v1beta1.
// +groupName=nohub.example.com
package v1beta1
