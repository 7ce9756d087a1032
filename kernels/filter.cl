/* Placeholder for the filter family. SPDX-License-Identifier: BSD-2-Clause */
