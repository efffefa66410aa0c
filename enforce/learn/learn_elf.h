/*
 * learn_elf.h - what the dynamic loader maps for a program, where no
 * shim sees it: for `cordon learn` (learn_elf.c).
 */
#ifndef CORDON_LEARN_ELF_H
#define CORDON_LEARN_ELF_H

/**
 * learn_elf_deps - the files the dynamic loader would take from outside
 * its default directories to run the ELF file @path: its interpreter
 * (PT_INTERP) and each DT_NEEDED library found along the file's own run
 * paths (DT_RPATH, DT_RUNPATH, with $ORIGIN).  Each is passed, resolved,
 * to @found.  Not an ELF file of this machine's class: nothing.
 * Return: how many were found.
 */
int learn_elf_deps(const char *path, void (*found)(const char *dep, void *arg),
		   void *arg);

/* Open @path for reading if it is a regular file (never a FIFO, which
 * would block, nor a device): a descriptor, or -1. */
int learn_open_file(const char *path);

#endif
