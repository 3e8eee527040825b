// +groupName=badpaths.example.com
package v1
