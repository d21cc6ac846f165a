#!/bin/sh
# Build the VM lab's guest image: Debian with GRUB on a partitioned disk.
#
#   build-image.sh OUT.qcow2 SUITE MIRROR PACKAGES(comma-separated) WORKDIR
#
# debootstrap (minbase) into WORKDIR/rootfs, then a raw disk with one
# partition, the tree copied onto it, GRUB installed in its MBR by the
# guest's own grub-install and update-grub, and the disk converted to qcow2.
# The guest takes its name and the lab's SSH key from QEMU's fw_cfg at boot
# (vm-lab-identity), makes its SSH host keys on first boot, and has a user
# "lab" with sudo. Each step prints its time.
set -eu
out=$1 suite=$2 mirror=$3 packages=$4 work=$5
root=$work/rootfs raw=$work/disk.raw mnt=$work/mnt
loop=
step_start=$(date +%s)
step() { now=$(date +%s); echo "vm_lab image: $1 ($((now - step_start)) s)"; step_start=$now; }
cleanup() {
  for d in dev/pts dev proc sys; do mountpoint -q "$mnt/$d" && umount "$mnt/$d"; done
  mountpoint -q "$mnt" && umount "$mnt"
  if [ -n "$loop" ]; then partx -d "$loop" 2>/dev/null || true; losetup -d "$loop"; fi
}
trap cleanup EXIT
rm -rf "$root" "$raw" "$mnt"
mkdir -p "$work" "$mnt"
debootstrap --variant=minbase --include="$packages" "$suite" "$root" "$mirror"
step debootstrap

here=$(dirname "$0")
cp -r "$here/guest/." "$root/"
chmod 755 "$root/usr/local/sbin/vm-lab-identity"
echo vmguest > "$root/etc/hostname"
chroot "$root" useradd -m -s /bin/bash -G sudo lab
echo 'lab ALL=(ALL) NOPASSWD:ALL' > "$root/etc/sudoers.d/lab"
chmod 440 "$root/etc/sudoers.d/lab"
rm -f "$root"/etc/ssh/ssh_host_*
# Each guest makes its own machine-id at first boot: udev derives the MACs of
# virtual interfaces (OVS internal ports) from it, and two guests with the same
# one gave their "overlay" ports the same MAC.
: > "$root/etc/machine-id"
rm -f "$root/var/lib/dbus/machine-id"
chroot "$root" systemctl enable -q systemd-networkd vm-lab-identity.service ssh-hostkeys.service
# A getty on ttyS0 hangs up the console the log is read from.
chroot "$root" systemctl mask -q serial-getty@ttyS0.service
step configured

qemu-img create -q -f raw "$raw" 4G
printf 'label: dos\nstart=2048, type=83, bootable\n' | sfdisk -q "$raw"
loop=$(losetup -P --show -f "$raw")
partx -a "$loop" 2>/dev/null || true
mkfs.ext4 -q -L root "${loop}p1"
uuid=$(blkid -s UUID -o value "${loop}p1")
mount "${loop}p1" "$mnt"
cp -a "$root/." "$mnt/"
echo "UUID=$uuid / ext4 defaults,errors=remount-ro 0 1" > "$mnt/etc/fstab"
for d in dev dev/pts proc sys; do mount --bind "/$d" "$mnt/$d"; done
chroot "$mnt" grub-install --target=i386-pc "$loop"
chroot "$mnt" update-grub
# Without udev here grub-mkconfig names the loop partition; the guest boots from its UUID.
sed -i "s#root=${loop}p1#root=UUID=$uuid#g" "$mnt/boot/grub/grub.cfg"
grep -q "root=UUID=$uuid" "$mnt/boot/grub/grub.cfg"
cleanup
loop=
trap - EXIT
step "disk with GRUB"

qemu-img convert -O qcow2 "$raw" "$out.part"
mv "$out.part" "$out"
rm -rf "$raw" "$root" "$mnt"
step "qcow2 $out"
