! An OpenMP loop in a module procedure: the parallel region is named after kernels::smooth, not after
! gfortran's __kernels_MOD_smooth. Checked by test/fortran.test.ts.
module kernels
  implicit none
contains
  subroutine smooth(a)
    real(8), intent(inout) :: a(:)
    integer :: i, r
    do r = 1, 50
      !$omp parallel do
      do i = 1, size(a)
        a(i) = sqrt(a(i) + i * 1d-3)
      end do
      !$omp end parallel do
    end do
  end subroutine
end module

program ompdemo
  use kernels
  implicit none
  real(8) :: a(100000)
  a = 1
  call smooth(a)
  print '(a,f0.3)', 'ompdemo ', a(5)
end program
