// +groupName=syntax.example.com
package v1
