/* SPDX-License-Identifier: MIT */
/* Adopting a raw handle is explicit: a raw pointer is borrowed otherwise. */
/* expect-g++: conversion from 'vs_pd*' to non-scalar type 'vs::pd' */
/* expect-clang++: no viable conversion from 'vs_pd *' to 'vs::pd' */
#include <verbshim.hpp>

vs::pd adopt(vs_pd *raw);

vs::pd adopt(vs_pd *raw)
{
	vs::pd p = raw;
	return p;
}
