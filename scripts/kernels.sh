#!/usr/bin/env bash
# Print the kernel releases fibtrace tests on: the newest installed release of
# each supported line (6.1, 6.12) that has both an image and headers.
for line in 6.1 6.12; do
	for img in /boot/vmlinuz-"$line".*; do
		[ -e "$img" ] || continue
		kver=${img#/boot/vmlinuz-}
		[ -d "/lib/modules/$kver/build" ] && echo "$kver"
	done | sort -V | tail -n 1
done
