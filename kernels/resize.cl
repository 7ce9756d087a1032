/* Placeholder for the resize family. SPDX-License-Identifier: BSD-2-Clause */
