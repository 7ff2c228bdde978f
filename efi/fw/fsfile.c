/* SPDX-License-Identifier: MIT */
/*
 * Whole files from the boot volume (see fsfile.h).
 *
 * Firmware calls: the Simple File System protocol (LibOpenRoot), the file
 * protocol's Open, GetInfo, Read and Close; over the network the PXE base
 * code protocol's Mtftp (the file's size, then the file); AllocatePages and FreePages;
 * AllocatePool/FreePool through owned.c.
 */
#include <efi.h>
#include <efilib.h>

#include "lib/efistatus.h"
#include "report/fmt.h"
#include "fw/fsfile.h"
#include "fw/owned.h"

#include <ptlab/pte.h>

#define NAME_MAX16 256u
#define READ_CHUNK (64u << 20)   /* one Read call at most: some drivers balk at more */

#define TFTP_BLOCK 1432u        /* asked of the server: fits an Ethernet frame */

/* The started PXE base code of @device with a DHCP answer, when it has no file system. */
static EFI_PXE_BASE_CODE *pxe_of(EFI_HANDLE device, EFI_IP_ADDRESS *server)
{
	EFI_FILE_IO_INTERFACE *fs = NULL;
	EFI_PXE_BASE_CODE *pxe = NULL;
	EFI_PXE_BASE_CODE_DHCPV4_PACKET *ack;

	if (!device || uefi_call_wrapper(BS->HandleProtocol, 3, device, &FileSystemProtocol,
					 (void **)&fs) == EFI_SUCCESS)
		return NULL;
	if (uefi_call_wrapper(BS->HandleProtocol, 3, device, &PxeBaseCodeProtocol,
			      (void **)&pxe) != EFI_SUCCESS || !pxe || !pxe->Mode ||
	    !pxe->Mode->Started || pxe->Mode->UsingIpv6 ||
	    !(pxe->Mode->DhcpAckReceived || pxe->Mode->ProxyOfferReceived))
		return NULL;
	ack = &pxe->Mode->ProxyOffer.Dhcpv4;
	if (!pxe->Mode->ProxyOfferReceived || !*(UINT32 *)ack->BootpSiAddr)
		ack = &pxe->Mode->DhcpAck.Dhcpv4;
	*server = (EFI_IP_ADDRESS){ 0 };
	CopyMem(server->v4.Addr, ack->BootpSiAddr, 4);
	return pxe;
}

bool fsfile_network(EFI_HANDLE device, char *what, size_t whatlen)
{
	EFI_IP_ADDRESS server;
	EFI_PXE_BASE_CODE *pxe = pxe_of(device, &server);
	EFI_PXE_BASE_CODE_DHCPV4_PACKET *ack;
	char file[sizeof(ack->BootpBootFile) + 1];
	const UINT8 *a = server.v4.Addr;

	if (!pxe)
		return false;
	ack = &pxe->Mode->DhcpAck.Dhcpv4;
	for (size_t i = 0; i + 1 < sizeof(file); i++) {
		unsigned char c = ack->BootpBootFile[i];

		file[i] = c >= 0x20 && c < 0x7f ? (char)c : 0;
		file[i + 1] = 0;
		if (!c)
			break;
	}
	fmt_snprintf(what, whatlen, "TFTP server %u.%u.%u.%u (boot file %s)", a[0], a[1], a[2],
		     a[3], file[0] ? file : "unnamed");
	return true;
}

/* @name as a file of the TFTP server: '\' as '/', no leading separator. */
static void tftp_name(const char *name, uint8_t *out)
{
	size_t i = 0;

	while (*name == '\\' || *name == '/')
		name++;
	for (; name[i] && i + 1 < FSFILE_TFTP_NAME; i++)
		out[i] = name[i] == '\\' ? '/' : (uint8_t)name[i];
	out[i] = 0;
}

/* TFTP's answer as fsfile_open's: a file the server does not have is EFI_NOT_FOUND. */
static EFI_STATUS tftp_status(struct fsfile *f, EFI_STATUS st, const char *op, char *err,
			      size_t errlen)
{
	EFI_PXE_BASE_CODE_MODE *m = f->pxe->Mode;
	const UINT8 *a = f->server.v4.Addr;
	char said[sizeof(m->TftpError.ErrorString) + 1] = "";

	if (st == EFI_TFTP_ERROR && m->TftpErrorReceived) {
		for (size_t i = 0; i + 1 < sizeof(said) && m->TftpError.ErrorString[i]; i++) {
			unsigned char c = (unsigned char)m->TftpError.ErrorString[i];

			said[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
			said[i + 1] = 0;
		}
		/*
		 * The code as the firmware kept it (EDK2 keeps the low byte of
		 * the code as sent, big endian: 1, file not found, arrives as
		 * 0); the server's text says what it was.  Any error answer
		 * means the server will not give the file: not found.
		 */
		fmt_snprintf(err, errlen, "%s: TFTP server %u.%u.%u.%u answered %s with error %u "
			     "\"%s\"", f->name, a[0], a[1], a[2], a[3], op,
			     m->TftpError.ErrorCode, said);
		return EFI_NOT_FOUND;
	}
	fmt_snprintf(err, errlen, "%s: %s from TFTP server %u.%u.%u.%u failed: status 0x%llx "
		     "(%s)", f->name, op, a[0], a[1], a[2], a[3], (unsigned long long)st,
		     efi_status_name(st));
	return st == EFI_TFTP_ERROR ? EFI_NOT_FOUND : st;
}

/*
 * Is @f's name a directory of the TFTP server?  A name that ends in a
 * separator is one; else the server is asked the size of NAME/. , which
 * only a directory has (a regular file answers "not found" at once).  A
 * server that sends a directory's size for the name itself would then
 * time its transfer out, block after block, for about a minute.
 */
static bool tftp_is_dir(struct fsfile *f)
{
	uint8_t probe[FSFILE_TFTP_NAME + 2];
	UINTN block = TFTP_BLOCK, n = 0;
	UINT64 size = 0;

	while (f->tftp[n])
		n++;
	if (!n || f->tftp[n - 1] == '/' || f->name[0] == 0)
		return true;
	for (UINTN i = 0; i < n; i++)
		probe[i] = f->tftp[i];
	probe[n] = '/';
	probe[n + 1] = '.';
	probe[n + 2] = 0;
	return uefi_call_wrapper(f->pxe->Mtftp, 10, f->pxe, EFI_PXE_BASE_CODE_TFTP_GET_FILE_SIZE,
				 NULL, FALSE, &size, &block, &f->server, probe, NULL, FALSE) ==
	       EFI_SUCCESS;
}

/* fsfile_open on the TFTP server: the file's size (tsize) asked. */
static EFI_STATUS tftp_open(struct fsfile *f, char *err, size_t errlen)
{
	const UINT8 *a = f->server.v4.Addr;
	UINTN block = TFTP_BLOCK;
	UINT64 size = 0;
	EFI_STATUS st;

	tftp_name(f->name, f->tftp);
	if (tftp_is_dir(f)) {
		fmt_snprintf(err, errlen, "%s is a directory of the TFTP server %u.%u.%u.%u, not "
			     "a file", f->name, a[0], a[1], a[2], a[3]);
		f->pxe = NULL;
		return EFI_INVALID_PARAMETER;
	}
	st = uefi_call_wrapper(f->pxe->Mtftp, 10, f->pxe, EFI_PXE_BASE_CODE_TFTP_GET_FILE_SIZE,
			       NULL, FALSE, &size, &block, &f->server, f->tftp, NULL, FALSE);
	if (st != EFI_SUCCESS) {
		st = tftp_status(f, st, "the size", err, errlen);
		f->pxe = NULL;
		return st;
	}
	f->size = size;
	return EFI_SUCCESS;
}

/* fsfile_read_all on the TFTP server: the whole file in one transfer. */
static EFI_STATUS tftp_read(struct fsfile *f, void *buf, char *err, size_t errlen)
{
	UINTN block = TFTP_BLOCK;
	UINT64 size = f->size;
	EFI_STATUS st;

	st = uefi_call_wrapper(f->pxe->Mtftp, 10, f->pxe, EFI_PXE_BASE_CODE_TFTP_READ_FILE, buf,
			       FALSE, &size, &block, &f->server, f->tftp, NULL, FALSE);
	if (st != EFI_SUCCESS)
		return tftp_status(f, st, "the read", err, errlen);
	if (size != f->size) {
		fmt_snprintf(err, errlen, "%s: TFTP gave %llu bytes, its size said %llu", f->name,
			     (unsigned long long)size, (unsigned long long)f->size);
		return EFI_END_OF_FILE;
	}
	return EFI_SUCCESS;
}

EFI_STATUS fsfile_open(EFI_HANDLE device, const char *name, struct fsfile *f, char *err,
		       size_t errlen)
{
	CHAR16 path[NAME_MAX16];
	/* EFI_FILE_INFO and a file name as long as the path */
	UINT64 info_buf[(sizeof(EFI_FILE_INFO) + sizeof(path)) / sizeof(UINT64) + 1];
	EFI_FILE_INFO *info = (EFI_FILE_INFO *)info_buf;
	UINTN info_len = sizeof(info_buf), i;
	EFI_FILE_HANDLE root;
	EFI_STATUS st;

	*f = (struct fsfile){ .name = name };
	for (i = 0; name[i]; i++) {
		if (name[i] == ':') {
			fmt_snprintf(err, errlen, "%s names a device, not a file on the boot volume",
				     name);
			return EFI_INVALID_PARAMETER;
		}
	}
	for (i = 0; name[i] && i + 1 < NAME_MAX16; i++)
		path[i] = name[i] == '/' ? L'\\' : (CHAR16)(unsigned char)name[i];
	path[i] = 0;
	f->pxe = pxe_of(device, &f->server);
	if (f->pxe)
		return tftp_open(f, err, errlen);
	root = LibOpenRoot(device);
	if (!root) {
		fmt_snprintf(err, errlen, "%s: the boot volume cannot be opened", name);
		return EFI_NOT_FOUND;
	}
	st = uefi_call_wrapper(root->Open, 5, root, &f->h, path, EFI_FILE_MODE_READ, 0);
	uefi_call_wrapper(root->Close, 1, root);
	if (st != EFI_SUCCESS) {
		f->h = NULL;
		fmt_snprintf(err, errlen, "%s cannot be opened: status 0x%llx (%s)", name,
			     (unsigned long long)st, efi_status_name(st));
		return st;
	}
	st = uefi_call_wrapper(f->h->GetInfo, 4, f->h, &GenericFileInfo, &info_len, info);
	if (st != EFI_SUCCESS) {
		fmt_snprintf(err, errlen, "%s: its size cannot be had (EFI_FILE_INFO): status 0x%llx "
			     "(%s)", name, (unsigned long long)st, efi_status_name(st));
		fsfile_close(f);
		return st;
	}
	if (info->Attribute & EFI_FILE_DIRECTORY) {
		fmt_snprintf(err, errlen, "%s is a directory, not a file", name);
		fsfile_close(f);
		return EFI_INVALID_PARAMETER;
	}
	f->size = info->FileSize;
	return EFI_SUCCESS;
}

EFI_STATUS fsfile_read_all(struct fsfile *f, void *buf, char *err, size_t errlen)
{
	uint64_t done = 0;

	if (f->pxe)
		return tftp_read(f, buf, err, errlen);
	while (done < f->size) {
		UINTN n = f->size - done > READ_CHUNK ? READ_CHUNK : (UINTN)(f->size - done);
		EFI_STATUS st = uefi_call_wrapper(f->h->Read, 3, f->h, &n, (char *)buf + done);

		if (st != EFI_SUCCESS) {
			fmt_snprintf(err, errlen, "reading %s (%llu bytes) failed at byte %llu: "
				     "status 0x%llx (%s)", f->name, (unsigned long long)f->size,
				     (unsigned long long)done, (unsigned long long)st,
				     efi_status_name(st));
			return st;
		}
		if (n == 0) {
			fmt_snprintf(err, errlen, "%s ended at byte %llu, its size says %llu", f->name,
				     (unsigned long long)done, (unsigned long long)f->size);
			return EFI_END_OF_FILE;
		}
		done += n;
	}
	return EFI_SUCCESS;
}

void fsfile_close(struct fsfile *f)
{
	if (f->h)
		uefi_call_wrapper(f->h->Close, 1, f->h);
	f->h = NULL;
	f->pxe = NULL;
}

/*
 * fsfile_open() of @name, refused (closed again, EFI_BAD_BUFFER_SIZE, the
 * reason in @err) when it is larger than @max bytes: never cut short.
 */
static EFI_STATUS open_at_most(EFI_HANDLE device, const char *name, uint64_t max,
			       struct fsfile *f, char *err, size_t errlen)
{
	EFI_STATUS st = fsfile_open(device, name, f, err, errlen);

	if (st != EFI_SUCCESS)
		return st;
	if (f->size > max) {
		fmt_snprintf(err, errlen, "%s is larger than %llu bytes (%llu): refused rather than "
			     "cut", name, (unsigned long long)max, (unsigned long long)f->size);
		fsfile_close(f);
		return EFI_BAD_BUFFER_SIZE;
	}
	return EFI_SUCCESS;
}

static UINTN pages_of(uint64_t bytes)
{
	return (UINTN)((bytes + PT_PAGE_SIZE - 1) / PT_PAGE_SIZE);
}

EFI_STATUS fsfile_load(EFI_HANDLE device, const char *name, uint64_t max, uint64_t max_pa,
		       uint64_t *pa, uint64_t *len, char *err, size_t errlen)
{
	struct fsfile f;
	EFI_PHYSICAL_ADDRESS a = max_pa;
	EFI_STATUS st;

	*pa = 0;
	*len = 0;
	st = open_at_most(device, name, max, &f, err, errlen);
	if (st != EFI_SUCCESS)
		return st;
	if (f.size == 0) {
		fsfile_close(&f);
		return EFI_SUCCESS;
	}
	a = max_pa;
	st = owned_alloc(max_pa == UINT64_MAX ? AllocateAnyPages : AllocateMaxAddress,
			 EfiLoaderData, f.size, &a);
	if (st != EFI_SUCCESS) {
		fmt_snprintf(err, errlen, "%s (%llu bytes): no %llu pages of RAM%s for it: status "
			     "0x%llx (%s)", name, (unsigned long long)f.size,
			     (unsigned long long)pages_of(f.size),
			     max_pa == UINT64_MAX ? "" : " low enough", (unsigned long long)st,
			     efi_status_name(st));
		fsfile_close(&f);
		return st;
	}
	st = fsfile_read_all(&f, (void *)(uintptr_t)a, err, errlen);
	fsfile_close(&f);
	if (st != EFI_SUCCESS) {
		owned_free(a, f.size);
		return st;
	}
	*pa = a;
	*len = f.size;
	return EFI_SUCCESS;
}

void fsfile_unload(uint64_t pa, uint64_t len)
{
	owned_free(pa, len);
}

EFI_STATUS fsfile_read(EFI_HANDLE device, const char *name, uint64_t max, char **out,
		       UINTN *len, char *err, size_t errlen)
{
	struct fsfile f;
	EFI_STATUS st;
	char *buf;

	*out = NULL;
	*len = 0;
	st = open_at_most(device, name, max, &f, err, errlen);
	if (st != EFI_SUCCESS)
		return st;
	buf = owned_pool(f.size + 1);
	if (!buf) {
		fmt_snprintf(err, errlen, "no memory to read %s (%llu bytes)", name,
			     (unsigned long long)f.size);
		fsfile_close(&f);
		return EFI_OUT_OF_RESOURCES;
	}
	st = fsfile_read_all(&f, buf, err, errlen);
	fsfile_close(&f);
	if (st != EFI_SUCCESS) {
		owned_pool_free(buf);
		return st;
	}
	buf[f.size] = 0;
	*out = buf;
	*len = f.size;
	return EFI_SUCCESS;
}
