// +groupName=nohub.example.com
package v1
