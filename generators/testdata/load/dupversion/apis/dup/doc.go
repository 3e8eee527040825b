// +groupName=dup.example.com
package dup
