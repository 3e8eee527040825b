// +groupName=dup.example.com
package v1
