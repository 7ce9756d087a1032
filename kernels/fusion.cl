/* Placeholder for the fusion family. SPDX-License-Identifier: BSD-2-Clause */
